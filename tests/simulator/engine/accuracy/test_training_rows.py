"""How a fine-tuning row's stack becomes the engine's: which projections its adapters target,
whether its layers run eagerly, and which PEFT methods are not LoRA."""

from dataclasses import replace
from typing import Any

import pytest

from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import TrainSetup, row_setup
from simulator.engine.model.lora import ALL_TARGETS
from simulator.engine.train.compute import HF_EAGER_TRAFFIC, PEFT_EAGER_TRAFFIC
from tests.simulator.engine.corpus_rows import corpus_row

PEFT = "PEFT method_comparison (peft 0.19, transformers 5.13; compile=False)"


def _train_row(**changes: Any) -> Any:
    body: dict[str, Any] = {
        "category": "training_finetune", "engine": PEFT, "model": "Llama-3.2-3B",
        "quant": "BF16 base (LoRA r=32)", "metric": "training throughput", "unit": "tokens/s",
        "value": 5000.0,
        "workload": {"phase": "train", "method": "LoRA", "batch_size": 4, "seq_len": 768,
                     "lora_rank": 32, "gradient_checkpointing": False},
    }  # fmt: skip
    return corpus_row(**{**body, **changes})


def _setup(row: Any) -> TrainSetup:
    setup = row_setup(row)
    assert isinstance(setup, TrainSetup)
    return setup


@pytest.mark.parametrize(
    ("quant", "engine", "targets"),
    [
        ("BF16 base (LoRA r=32, q_proj/v_proj)", PEFT, ("q", "v")),
        ("BF16 base (LoRA r=10, MLP targets)", PEFT, ("gate", "up", "down")),
        ("BF16 base (LoRA r=32)", PEFT, ("q", "v")),  # PEFT's default for Llama
        ("BF16 base (LoRA r=32, all modules)", PEFT, ALL_TARGETS),
        ("BF16 base (LoRA r=32)", "Unsloth 2025.3", ALL_TARGETS),  # its recipes adapt all
    ],
)
def test_the_adapted_projections_are_those_the_row_or_its_stack_names(
    quant: str, engine: str, targets: tuple[str, ...]
) -> None:
    setup = _setup(_train_row(quant=quant, engine=engine))
    assert setup.request.workload.lora.targets == targets


def test_transformers_with_peft_runs_eagerly_unless_it_compiles() -> None:
    assert _setup(_train_row()).request.workload.eager_traffic == PEFT_EAGER_TRAFFIC
    full = _train_row(quant="Full finetune (BF16)", workload={
        "phase": "train", "method": "Full finetune", "batch_size": 4, "seq_len": 768})  # fmt: skip
    assert _setup(full).request.workload.eager_traffic == HF_EAGER_TRAFFIC
    compiled = _train_row(engine="HF Accelerate FSDP2 example (regional torch.compile)")
    assert _setup(compiled).request.workload.eager_traffic is None
    assert _setup(_train_row(engine="Unsloth 2025.3")).request.workload.eager_traffic is None


@pytest.mark.parametrize("method", ["DoRA r=32", "LoHa r=32", "OFT r=32", "IA3", "VeRA"])
def test_a_peft_method_that_is_not_lora_is_listed_with_the_reason(method: str) -> None:
    prediction = predict_row(_train_row(quant=f"BF16 base ({method})"))
    assert not prediction.modeled
    assert "is not LoRA" in prediction.reason


@pytest.mark.parametrize(
    ("parallelism", "tensor_parallel", "data_parallel"),
    [("FSDP2 (FSDP 4) + TP2", 2, "fsdp"), ("Megatron TP4 + SP", 4, "zero1"), ("TP=8", 8, "zero1")],
)
def test_tensor_parallel_training_reads_the_split_and_its_data_parallel_groups(
    parallelism: str, tensor_parallel: int, data_parallel: str
) -> None:
    row = _train_row(
        engine="NeMo Megatron-Bridge", hardware={"gpu": "H100 SXM", "gpu_count": 8},
        workload={"phase": "train", "method": "LoRA", "batch_size": 2, "seq_len": 4096,
                  "parallelism": parallelism},
    )  # fmt: skip
    workload = _setup(row).request.workload
    assert workload.tensor_parallel == tensor_parallel
    assert workload.parallelism == data_parallel
    assert predict_row(row).modeled


def _megatron_row(parallelism: str, **workload: object) -> Any:
    return _train_row(
        engine="NeMo Megatron-Bridge", hardware={"gpu": "H100 SXM", "gpu_count": 8},
        workload={"phase": "train", "method": "LoRA", "batch_size": 1, "seq_len": 4096,
                  "parallelism": parallelism, **workload},
    )  # fmt: skip


def test_megatron_stages_are_read_with_their_chunks_and_the_global_batch() -> None:
    """TP2 PP4 VP5 on 8 GPUs: one data-parallel group, so a global batch of 32 one-sequence
    micro-batches is 32 per step; the distributed optimizer is Megatron's default."""
    workload = _setup(_megatron_row("TP2 PP4 VP5", sequences_per_step=32)).request.workload
    assert (workload.tensor_parallel, workload.pipeline_parallel) == (2, 4)
    assert workload.virtual_stages == 5
    assert workload.micro_batches == 32
    assert workload.parallelism == "zero1"
    two_groups = _setup(_megatron_row("TP1 PP4", sequences_per_step=32)).request.workload
    assert two_groups.micro_batches == 16
    assert predict_row(_megatron_row("TP2 PP4 VP5", sequences_per_step=32)).modeled


def test_pipeline_stages_without_a_global_batch_are_listed_with_the_reason() -> None:
    prediction = predict_row(_megatron_row("TP2 PP4 VP5"))
    assert not prediction.modeled
    assert "no global batch stated" in prediction.reason


def test_a_rows_bf16_optimizer_state_is_read_from_what_it_says() -> None:
    """Pure BF16 said outright, or a transformers full fine-tune of a BF16 model on one GPU
    with no mixed-precision wrapper; DeepSpeed keeps FP32 master weights."""
    full = {"phase": "train", "method": "Full finetune", "batch_size": 1, "seq_len": 1024}
    said = _train_row(engine="LLaMA-Factory", quant="Full finetune (pure BF16)", workload=full)
    plain = _train_row(engine="PEFT benchmark (dtype bfloat16)", quant="BF16", workload=full)
    deepspeed = _train_row(
        engine="ms-swift swift sft (transformers + DeepSpeed)", quant="Full finetune (BF16)",
        workload={**full, "parallelism": "DeepSpeed ZeRO-2"},
    )  # fmt: skip
    assert _setup(said).request.workload.optimizer == "adamw-bf16"
    assert _setup(plain).request.workload.optimizer == "adamw-bf16"
    assert _setup(deepspeed).request.workload.optimizer == "adamw"


def test_nemo_automodel_is_a_pytorch_native_fsdp2_stack_not_megatron() -> None:
    automodel = _setup(_train_row(engine="NeMo AutoModel (PyTorch backend, TE kernels)"))
    megatron = _setup(_train_row(engine="NeMo Megatron-Bridge"))
    assert automodel.runtime == "torchtune"
    assert megatron.runtime == "megatron"


def test_a_float8_studys_bf16_baseline_is_bf16_training_and_its_float8_runs_fp8() -> None:
    engine = "torchtitan + torchao float8, torch.compile"
    row = _train_row(
        engine=engine, quant="BF16", hardware={"gpu": "H100 SXM", "gpu_count": 8},
        workload={"phase": "train", "method": "Full training", "batch_size": 1,
                  "seq_len": 8192, "gradient_checkpointing": True, "parallelism": "FSDP2"},
    )  # fmt: skip
    assert predict_row(row).modeled
    assert _setup(row).request.workload.quant.name == "BF16"
    for quant in ("float8 rowwise", "FP8", "MXFP8"):
        fp8 = _setup(replace(row, quant=quant))
        assert fp8.request.workload.quant.fp8_gemms, quant


def test_torchtitans_logged_tokens_per_second_are_each_gpus() -> None:
    """torchtitan divides its tokens by the time and by the GPUs that share them ("tokens per
    second per device"), whatever the row's unit calls it."""
    body: dict[str, Any] = {
        "quant": "BF16", "hardware": {"gpu": "H100 SXM", "gpu_count": 8},
        "workload": {"phase": "train", "method": "Full training", "batch_size": 1,
                     "seq_len": 8192, "gradient_checkpointing": True, "parallelism": "FSDP2"},
    }  # fmt: skip
    titan = predict_row(_train_row(engine="torchtitan (torch 2.7)", **body))
    tune = predict_row(_train_row(engine="torchtune (torch 2.7)", **body))
    assert titan.predicted is not None
    assert tune.predicted is not None
    assert titan.predicted == pytest.approx(tune.predicted / 8)


@pytest.mark.parametrize(
    ("parallelism", "offload", "expected"),
    [
        ("DeepSpeed ZeRO-2 + CPU offload", "optimizer", "zero2"),
        ("DeepSpeed ZeRO-3 + CPU offload", "parameters", "fsdp"),
        ("FSDP (full shard) + CPU offload", "parameters", "fsdp"),
        ("DeepSpeed ZeRO-Offload (CPU optimizer)", "optimizer", "ddp"),
        ("DeepSpeed ZeRO-3 (no CPU offload)", "none", "fsdp"),
    ],
)
def test_a_rows_offload_is_read_from_its_stack(
    parallelism: str, offload: str, expected: str
) -> None:
    """ZeRO-1/2's CPU offload moves the optimizer; ZeRO-3's and FSDP's the weights too; a
    negated mention is no offload."""
    row = _train_row(
        engine="DeepSpeed", hardware={"gpu": "RTX 4090", "gpu_count": 1, "cpu": "Ryzen 9 7950X"},
        workload={"phase": "train", "method": "Full finetune", "batch_size": 4, "seq_len": 1024,
                  "parallelism": parallelism},
    )  # fmt: skip
    request = _setup(row).request
    assert request.workload.offload == offload
    assert request.workload.parallelism == expected
    if offload != "none":
        assert request.hardware.cpu is not None
        assert request.hardware.cpu.mem_gbps == pytest.approx(83.2)


def test_an_offloaded_row_without_its_cpu_is_listed_with_the_reason() -> None:
    row = _train_row(
        engine="LLaMA-Factory", hardware={"gpu": "RTX 4090", "gpu_count": 1},
        workload={"phase": "train", "method": "Full finetune", "batch_size": 4, "seq_len": 1024,
                  "parallelism": "DeepSpeed ZeRO-2 + CPU offload"},
    )  # fmt: skip
    prediction = predict_row(row)
    assert not prediction.modeled
    assert "names no CPU" in prediction.reason


def _full_row(model: str, gpus: int, **workload: Any) -> Any:
    return _train_row(
        engine="LLaMA-Factory (full fine-tune)", model=model, quant="not stated (16-bit)",
        hardware={"gpu": "A100 80GB SXM", "gpu_count": gpus},
        workload={"phase": "train", "method": "full", "batch_size": 1, "seq_len": 8192,
                  **workload},
    )  # fmt: skip


def test_a_full_fine_tune_that_states_no_strategy_runs_ddp_where_a_replica_fits() -> None:
    """Llama 3.2 3B's weights, gradients and Adam state (about 16 bytes a weight, 52 GB) fit
    one 80 GB GPU: the launchers' default, DDP, stands."""
    assert _setup(_full_row("Llama-3.2-3B", 8)).request.workload.parallelism == "ddp"


def test_a_full_fine_tune_no_replica_of_which_fits_a_gpu_was_sharded() -> None:
    """Llama 2 7B's state (about 16 bytes a weight, 108 GB) fits no 80 GB GPU whole: the run
    was measured, so it sharded (ZeRO-3, FSDP's layout) and is predicted so; a stated
    strategy or one GPU is left as it is."""
    sharded = _full_row("Llama-2-7b", 8)
    assert _setup(sharded).request.workload.parallelism == "fsdp"
    assert predict_row(sharded).modeled
    stated = _full_row("Llama-2-7b", 8, parallelism="DDP over 8 GPUs")
    assert _setup(stated).request.workload.parallelism == "ddp"
    assert "cannot fit" in predict_row(stated).reason
    one = _full_row("Llama-2-7b", 1)
    assert _setup(one).request.workload.parallelism == "ddp"


def test_more_gpus_than_a_board_holds_need_the_network_between_machines_stated() -> None:
    """32 GPUs are several machines (an HGX board holds 8): without the network between them
    the row is listed with the reason; with it stated, it is read."""
    unstated = predict_row(_full_row("Llama-2-7b", 32))
    assert not unstated.modeled
    assert "32 GPUs span several machines" in unstated.reason
    stated = _full_row("Llama-2-7b", 32)
    stated = replace(stated, hardware={**stated.hardware, "interconnect": "NVLink, 4 nodes IB"})
    assert predict_row(stated).modeled
