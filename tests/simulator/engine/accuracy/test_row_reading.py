"""How a corpus row's published spellings become an engine setup: units, device names in any
word order, MLX's quantization names, CPU-only machines and their sockets."""

from typing import Any

import pytest

from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import (
    InferSetup,
    _match,
    is_tokens_per_s,
    per_gpu,
    per_user,
    row_setup,
    runtime_of,
)
from simulator.engine.devices import Cpu, Gpu, System, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.serve.file_size import stored_bytes
from simulator.engine.serve.kv_cache import kv_bytes_per_token
from simulator.engine.serve.placement import model_parts, place
from tests.simulator.engine.corpus_rows import corpus_row


def _row(**changes: Any) -> Any:
    return corpus_row(**changes)


@pytest.mark.parametrize(
    "unit", ["tok/s", "t/s", "Tokens/s", "tokens per second", "TPS", "toks/sec", "token/s",
             "tok/s (prompt_tps)", "tokens-per-sec"],
)  # fmt: skip
def test_every_spelling_of_tokens_per_second_is_a_speed(unit: str) -> None:
    assert is_tokens_per_s(unit)
    assert predict_row(_row(unit=unit)).modeled


def test_thousands_of_tokens_per_second_are_read_as_published() -> None:
    """ "k TPS (published as '8.6k')": the row keeps 8.6, the prediction is in thousands."""
    in_thousands = predict_row(_row(unit="k TPS (published as '0.1k')", value=0.1))
    plain = predict_row(_row(unit="tok/s", value=100.0))
    assert in_thousands.modeled
    assert in_thousands.predicted is not None
    assert plain.predicted is not None
    assert in_thousands.predicted == pytest.approx(plain.predicted / 1000)
    assert in_thousands.signed_error == pytest.approx(plain.signed_error)


@pytest.mark.parametrize("unit", ["s", "s/it", "it/s", "samples/s", "GiB", "peak tokens/sec"])
def test_other_units_are_not_modeled_with_the_reason(unit: str) -> None:
    prediction = predict_row(_row(unit=unit))
    assert not prediction.modeled
    assert unit in prediction.reason


@pytest.mark.parametrize(
    ("unit", "kind"),
    [("s/it", "a time"), ("Sec/step", "a time"), ("min", "a time"),
     ("it/s", "a rate of samples or steps"), ("samples/s", "a rate of samples or steps"),
     ("GiB", "a capacity limit"), ("peak tokens/sec", "a peak"), ("TFlops/GPU", "a FLOP rate")],
)  # fmt: skip
def test_a_figure_that_is_not_a_speed_says_what_it_measures(unit: str, kind: str) -> None:
    assert f"is {kind}" in predict_row(_row(unit=unit)).reason


def test_a_per_gpu_figure_is_the_machines_over_its_gpus() -> None:
    assert per_gpu("tokens/s/GPU")
    assert per_gpu("tokens per second per GPU")
    assert not per_gpu("tok/s")
    hardware = {"gpu": "RTX 4090", "gpu_count": 2}
    machine = predict_row(_row(hardware=hardware)).predicted
    each = predict_row(_row(hardware=hardware, unit="tokens/s/GPU")).predicted
    assert machine is not None
    assert each == pytest.approx(machine / 2)


def test_a_per_user_figure_is_the_serving_runs_over_its_requests() -> None:
    assert per_user("tok/s/user")
    assert per_user("per-user output throughput")
    assert not per_user("tok/s")
    serving = {"phase": "serving", "concurrency": 32, "prompt_tokens": 1024, "gen_tokens": 128}
    hardware = {"gpu": "H100 SXM", "gpu_count": 1}
    run = predict_row(_row(hardware=hardware, workload=serving))
    user = predict_row(_row(hardware=hardware, workload=serving, unit="tok/s/user"))
    assert run.predicted is not None
    assert user.predicted == pytest.approx(run.predicted / 32)


def test_a_device_is_found_by_its_words_in_any_order() -> None:
    row = _row(hardware={"system": "Apple M3 Ultra Mac Studio 512GB"},
               engine="llama.cpp Metal")  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    unified = setup.request.hardware.unified
    assert unified is not None
    assert unified.name == require_device(System, "mac-studio-m3-ultra-512gb", field="x").name


@pytest.mark.parametrize(
    ("kind", "text", "slug"),
    [(System, "Apple MacBook Pro M1 Max 64GB", "apple-m1-max-32-core-gpu"),  # not "Apple M1 Pro"
     (Gpu, "NVIDIA GeForce RTX 3090 Ti 24GB", "rtx-3090-ti")],  # not "RTX 3090 24GB"
)  # fmt: skip
def test_a_name_found_as_a_string_wins_over_words_scattered_in_the_text(
    kind: type[Any], text: str, slug: str
) -> None:
    assert _match(kind, text) is require_device(kind, slug, field="x")


def test_mlx_bit_widths_are_its_affine_formats() -> None:
    row = _row(hardware={"system": "Mac Studio M3 Ultra 512GB"}, engine="mlx-lm 0.26",
               quant="4-bit")  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.quant == weight_scheme("MLX4")
    # a 16-bit scale and bias per 64 weights: 4 + 32/64 bits
    assert weight_scheme("MLX4").bytes_per_weight("dense") == pytest.approx(4.5 / 8)


def test_a_row_without_its_quantization_is_not_modeled() -> None:
    prediction = predict_row(_row(quant="not stated"))
    assert not prediction.modeled
    assert "quantization" in prediction.reason


def test_a_cpu_only_row_runs_on_the_cpu_with_one_sockets_bandwidth_for_llama_cpp() -> None:
    cpu = require_device(Cpu, "epyc-9354p", field="x")
    hardware = {"cpu": cpu.name, "sockets": 2, "ram": "768 GB"}
    row = _row(hardware=hardware, category="inference_cpu", engine="llama.cpp CPU (no numactl)")
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.placement == "cpu"
    spec = setup.request.hardware.cpu
    assert spec is not None
    # both sockets compute; pages sit on the node that first touched them
    assert spec.cores == 2 * cpu.cores
    assert spec.mem_gbps == pytest.approx(cpu.mem_gbps)
    assert setup.request.hardware.ram_gib == 768


@pytest.mark.parametrize(
    ("ram", "gib"),
    [("8x 32GB DDR5-6000 at 4800 (256GB)", 256), ("8x 32GB DDR5-4800", 256),
     ("512GB 12-channel DDR5-6000", 512), ("1TB DDR5", 1024), ("64GB DDR4", 64)],
)  # fmt: skip
def test_the_ram_a_row_states_is_its_total_not_one_modules_size(ram: str, gib: int) -> None:
    cpu = require_device(Cpu, "epyc-9354p", field="x")
    row = _row(hardware={"cpu": cpu.name, "ram": ram}, category="inference_cpu",
               engine="llama.cpp CPU")  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.request.hardware.ram_gib == gib


def test_a_numa_replicating_runtime_reads_both_sockets_memory() -> None:
    cpu = require_device(Cpu, "intel-xeon-gold-6454s", field="x")
    hardware = {"cpu": cpu.name, "sockets": 2, "gpu": "RTX 4090", "gpu_count": 1}
    row = _row(hardware=hardware, engine="KTransformers 0.2", model="DeepSeek-V3",
               quant="Q4_K_M", category="inference_moe_offload")  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    spec = setup.request.hardware.cpu
    assert spec is not None
    assert spec.mem_gbps == pytest.approx(2 * cpu.mem_gbps)


def test_prompt_processing_one_token_at_a_time_is_decode_at_the_mean_depth() -> None:
    row = _row(engine="llama.cpp CUDA (-ub 1, full offload)",
               workload={"phase": "prefill", "test": "pp512"})  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.phase == "decode"
    assert setup.request.workload.context == 256


def test_the_stated_micro_batch_is_the_prefills() -> None:
    row = _row(engine="ik_llama.cpp CUDA (n_ubatch 1024, fa 1)",
               workload={"phase": "prefill", "test": "pp2048"})  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.ubatch == 1024


def test_llama_cpps_experimental_tensor_split_is_not_modeled() -> None:
    prediction = predict_row(_row(engine="llama.cpp CUDA (PR branch, 4 GPUs, -sm tensor)",
                                  hardware={"gpu": "RTX 4090", "gpu_count": 4}))  # fmt: skip
    assert not prediction.modeled
    assert "-sm tensor" in prediction.reason


@pytest.mark.parametrize("flag", ["-sm row", "--split-mode row"])
def test_llama_cpps_row_split_is_not_modeled_as_tensor_parallelism(flag: str) -> None:
    """Row split gathers every matrix product on the main GPU: neither the layer split nor
    Megatron's two all-reduces per layer."""
    prediction = predict_row(_row(engine=f"llama.cpp CUDA (4 GPUs, {flag})",
                                  hardware={"gpu": "RTX 4090", "gpu_count": 4}))  # fmt: skip
    assert not prediction.modeled
    assert "row split (-sm row)" in prediction.reason
    assert predict_row(_row(engine="llama.cpp CUDA (4 GPUs, -sm layer)",
                            hardware={"gpu": "RTX 4090", "gpu_count": 4})).modeled  # fmt: skip


@pytest.mark.parametrize(
    ("flags", "offload_from"),
    [("-ngl 99 -ot exps=CPU", None), ("--cpu-moe", None), ("-ot blk.12-47.ffn=CPU", 12),
     ("--n-cpu-moe 10", 38), ("-ot blk.0-15.ffn=CUDA0, rest ffn=CPU", 16)],
)  # fmt: skip
def test_llama_cpps_expert_overrides_are_the_hybrid_placement(
    flags: str, offload_from: int | None
) -> None:
    cpu = require_device(Cpu, "threadripper-pro-7975wx", field="x")
    row = _row(engine=f"llama.cpp CUDA ({flags}, -fa 1)", model="Qwen3-30B-A3B",
               hardware={"gpu": "RTX 4090", "gpu_count": 1, "cpu": cpu.name, "ram": "256 GB"},
               category="inference_moe_offload")  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    workload = setup.request.workload
    assert workload.placement == "hybrid"
    assert workload.offload_from_layer == offload_from  # Qwen3-30B-A3B has 48 layers


@pytest.mark.parametrize(
    ("name", "bits"),
    [("IQ2_K", 2.375), ("IQ3_K", 3.4375), ("IQ4_K_R4", 4.5), ("IQ5_K_R4", 5.5), ("Q6_0", 6.5),
     ("Q6_0_R4", 6.5), ("IQ4_NL_R4", 4.5), ("Q8_0_R8", 8.5), ("q4_0_r8", 4.5)],
)  # fmt: skip
def test_ik_llama_cpps_k_quants_read_their_block_sizes(name: str, bits: float) -> None:
    assert weight_scheme(name).bytes_per_weight("experts") * 8 == pytest.approx(bits)


def test_an_integrated_gpu_named_as_the_gpu_is_its_unified_memory_system() -> None:
    strix = require_device(System, "amd-ryzen-ai-max-plus-395", field="x")
    row = _row(engine="llama.cpp Vulkan (b6000, -fa 1)",
               hardware={"gpu": "AMD Radeon 8060S (Strix Halo iGPU), 128 GB"})  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.placement == "unified"
    unified = setup.request.hardware.unified
    assert unified is not None
    assert unified.mem_gbps == strix.mem_bandwidth_gbps
    assert unified.mem_gib == 128


SERVING = {"phase": "serving", "prompt_tokens": 1000, "gen_tokens": 1000, "num_prompts": 3000}


def test_a_vllm_offline_run_serves_as_many_requests_as_its_defaults_allow() -> None:
    """3,000 prompts queued on an RTX 4090 (24 GiB, < 70 GiB: max_num_seqs 256): the KV
    cache, 0.9 × 24 GiB less the weights, holds far fewer requests of 1,000 + 500 tokens."""
    setup = row_setup(_row(engine="vLLM 0.10", workload=SERVING, category="serving_batched"))
    assert isinstance(setup, InferSetup)
    w = setup.request.workload
    weights = sum(s.stored_bytes for s in place(model_parts(w.model), w.quant, "gpu").shares)
    per_request = kv_bytes_per_token(w.model) * 1500
    assert w.batch == int((0.9 * 24 * 2**30 - weights) // per_request)
    assert 1 < w.batch < 256


@pytest.mark.parametrize(("peak", "modeled"), [(5848.0, False), (400.0, True), (None, True)])
def test_a_serving_run_whose_peak_is_over_ten_times_its_mean_is_not_modeled(
    peak: float | None, modeled: bool
) -> None:
    """gpustack's SGLang run of gpt-oss-20b on an A100: 265.99 output tok/s on average, 5,848
    at its peak; a steady run (vLLM's on the same GPU, 4,620 and 7,484) is modeled."""
    workload = {**SERVING, "peak_output_tokens_per_s": peak} if peak else SERVING
    prediction = predict_row(_row(engine="vLLM 0.10", workload=workload, value=265.99,
                                  metric="output token throughput",
                                  category="serving_batched"))  # fmt: skip
    assert prediction.modeled is modeled
    if not modeled:
        assert "did not serve at a steady rate" in prediction.reason


def test_a_vllm_server_runs_only_what_its_kv_pool_admits_of_the_requests_in_flight() -> None:
    """A client keeping 1,000 requests in flight on an RTX 4090: the server runs what its
    defaults and KV cache admit (the offline run's number for a queue of 1,000) and queues
    the rest; 8 in flight all run."""
    many = {**SERVING, "num_prompts": None, "max_concurrency": 1000}
    offline = {**SERVING, "num_prompts": 1000}
    setups = [
        row_setup(_row(engine="vLLM 0.10", workload=w, category="serving_batched"))
        for w in (many, offline, {**many, "max_concurrency": 8})
    ]
    assert all(isinstance(s, InferSetup) for s in setups)
    running, queue_of_1000, eight = (s.request.workload.batch for s in setups)  # type: ignore[union-attr]
    assert 1 < running == queue_of_1000 < 256
    assert eight == 8
    # llama.cpp's server runs every slot it was given: no pool rule
    slots = row_setup(_row(engine="llama.cpp llama-server", workload=many,
                           category="serving_batched"))  # fmt: skip
    assert isinstance(slots, InferSetup)
    assert slots.request.workload.batch == 1000


@pytest.mark.parametrize(
    ("engine", "workload", "reason"),
    [("TensorRT-LLM trtllm-bench", SERVING, "trtllm-bench"),
     ("llama.cpp llama-server", SERVING, "vLLM and SGLang on GPUs only"),
     ("llama.cpp llama-server", {**SERVING, "request_rate": 4.0}, "vLLM and SGLang on GPUs only")],
)  # fmt: skip
def test_an_offline_run_without_published_batching_is_not_modeled(
    engine: str, workload: dict[str, Any], reason: str
) -> None:
    prediction = predict_row(_row(engine=engine, workload=workload, category="serving_batched"))
    assert not prediction.modeled
    assert reason in prediction.reason
    one = predict_row(_row(engine=engine, workload={**workload, "num_prompts": 1},
                           category="serving_batched"))  # fmt: skip
    assert one.modeled


@pytest.mark.parametrize(
    ("engine", "runtime"),
    [("TensorRT-LLM trtllm-bench (PyTorch backend), TP1", "tensorrt-llm"),
     ("Megatron-Bridge (NeMo 26.06 container)", "megatron"),
     ("NVIDIA NeMo 24.07 container", "megatron"), ("torchtitan + FSDP2", "torchtune"),
     ("HF accelerate FSDP", "hf-transformers"), ("vllm-mlx v0.3.0", "mlx"),
     ("mlx-lm 0.26 (mlx_lm.generate)", "mlx"), ("Rapid-MLX server", "mlx"),
     ("llama.cpp SYCL (oneAPI 2025.3.3, GGML_SYCL_F16=ON)", "llama.cpp-sycl"),
     ("IPEX-LLM portable llama.cpp (SYCL), Windows 11", "llama.cpp-sycl"),
     ("llamafile-0.7 CPU", "llama.cpp"), ("llamafile v0.8.11 (CPU)", "llama.cpp"),
     ("PyTorch + torchao (BF16 eager)", "torchtune"), ("koboldcpp 1.80 (CUDA)", "llama.cpp"),
     ("LM Studio 0.3.5", "llama.cpp"), ("LM Studio (MLX engine)", "mlx"),
     ("vLLM 0.6.3 (PyTorch 2.4)", "vllm")],
)  # fmt: skip
def test_engine_strings_name_their_runtime_family(engine: str, runtime: str) -> None:
    assert runtime_of(_row(engine=engine)) == runtime


def test_fp8_training_on_a_gpu_without_fp8_tensor_cores_is_not_modeled() -> None:
    row = _row(engine="torchtitan + torchao float8", category="training_multi_gpu",
               quant="BF16 + float8 linears", hardware={"gpu": "RTX 3090", "gpu_count": 1},
               workload={"phase": "train", "method": "Full finetune", "seq_len": 1024,
                         "batch_size": 1})  # fmt: skip
    prediction = predict_row(row)
    assert not prediction.modeled
    assert "FP8 tensor cores" in prediction.reason


def test_training_on_a_unified_memory_system_says_so() -> None:
    """MLX LoRA on a Mac: the reason names what the training engine lacks, not a missing key."""
    row = _row(engine="MLX (mlx-examples lora/lora.py)", category="training_finetune",
               hardware={"system": "Apple M2 Ultra"},
               workload={"phase": "train", "method": "LoRA", "seq_len": 512,
                         "batch_size": 4})  # fmt: skip
    prediction = predict_row(row)
    assert not prediction.modeled
    assert "unified-memory system" in prediction.reason


def test_fewer_threads_than_cores_is_not_modeled() -> None:
    """Four threads of a 36-core Xeon draw a share of its bandwidth no datasheet gives."""
    row = _row(hardware={"cpu": "Intel Xeon w9-3475X", "threads": 4},
               engine="llama.cpp CPU")  # fmt: skip
    prediction = predict_row(row)
    assert not prediction.modeled
    assert "4 threads on 36 cores" in prediction.reason
    assert predict_row(_row(hardware={"cpu": "Intel Xeon w9-3475X", "threads": 36},
                                engine="llama.cpp CPU")).modeled  # fmt: skip


def test_two_sockets_without_a_stated_numa_policy_are_not_modeled() -> None:
    two = {"cpu": "AMD EPYC 9115", "sockets": 2}
    prediction = predict_row(_row(hardware=two, engine="llama.cpp CPU"))
    assert not prediction.modeled
    assert "NUMA policy" in prediction.reason
    stated = predict_row(_row(hardware=two, engine="llama.cpp CPU (--numa distribute)"))
    assert stated.modeled


def test_a_kv_cache_in_host_ram_is_read_with_the_cpu_that_holds_it() -> None:
    """llama.cpp -nkvo: the cache and its attention on the CPU the row names; without one the
    row is listed with the reason; with attention's weights on the CPU too it is another
    placement."""
    hardware = {"gpu": "RTX 4090", "gpu_count": 1, "cpu": "AMD Ryzen 9 7950X"}
    setup = row_setup(_row(engine="llama.cpp CUDA (-ngl 99 -nkvo 1)", hardware=hardware))
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.kv_cache_on_cpu
    assert setup.request.hardware.cpu is not None
    on_gpu = predict_row(_row(hardware=hardware))
    in_ram = predict_row(_row(engine="llama.cpp CUDA (-nkvo 1)", hardware=hardware))
    assert on_gpu.predicted is not None
    assert in_ram.predicted is not None
    assert in_ram.predicted < on_gpu.predicted
    no_cpu = predict_row(_row(engine="llama.cpp CUDA (-nkvo 1)"))
    assert not no_cpu.modeled
    assert "names no CPU" in no_cpu.reason
    attention = predict_row(_row(engine="ik_llama.cpp (-ot attn=CPU -nkvo)", hardware=hardware))
    assert not attention.modeled
    assert "attn=CPU" in attention.reason


@pytest.mark.parametrize(
    ("engine", "gpu_layers"),
    [
        ("llama.cpp CUDA (-ngl 20)", 19),  # -ngl counts the LM head as a layer
        ("llama.cpp (partial offload, 16 layers on GPU)", 16),
        ("llama.cpp CUDA (-ngl 99)", None),
        ("llama.cpp CUDA (-ngl 33)", None),  # 32 layers and the head: every layer
    ],
)
def test_a_partial_offload_is_read_as_whole_layers_in_host_ram(
    engine: str, gpu_layers: int | None
) -> None:
    """Llama 3.1 8B's 32 layers: -ngl N keeps N − 1 of them on the GPU, a stated count as
    stated; with the CPU the row names, which holds and computes the others."""
    hardware = {"gpu": "RTX 4090", "gpu_count": 1, "cpu": "AMD Ryzen 9 7950X"}
    setup = row_setup(_row(engine=engine, hardware=hardware))
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.gpu_layers == gpu_layers
    if gpu_layers is not None:
        assert predict_row(_row(engine=engine, hardware=hardware)).modeled
        no_cpu = predict_row(_row(engine=engine))
        assert not no_cpu.modeled
        assert "names no CPU" in no_cpu.reason


def test_threads_said_in_the_command_line_count_like_stated_ones() -> None:
    """Six threads on a 16-core CPU draw an unknown share of its bandwidth: listed."""
    hardware = {"gpu": "RTX 4090", "gpu_count": 1, "cpu": "AMD Ryzen 9 7950X"}
    prediction = predict_row(_row(engine="llama.cpp CUDA (-ngl 20 -t 6)", hardware=hardware))
    assert not prediction.modeled
    assert "6 threads on 16 cores" in prediction.reason


def test_a_gpu_hosted_by_a_raspberry_pi_is_not_modeled() -> None:
    pi = {"gpu": "RTX 4090", "gpu_count": 1, "cpu": "Raspberry Pi 5 (BCM2712)"}
    row = _row(engine="llama.cpp Vulkan", hardware=pi)
    prediction = predict_row(row)
    assert not prediction.modeled
    assert "Raspberry Pi" in prediction.reason


@pytest.mark.parametrize(
    ("engine", "quant", "repacked"),
    [("ik_llama.cpp CUDA (-ngl 99 -fa -rtr -fmoe, -ot exps=CPU)", "IQ4_K", True),
     ("ik_llama.cpp CUDA (-ngl 99 -fa -fmoe, -ot exps=CPU)", "IQ4_K_R4", True),
     ("ik_llama.cpp CUDA (-ngl 99 -fa -fmoe, -ot exps=CPU)", "IQ4_K", False)],
)  # fmt: skip
def test_repacked_experts_are_read_from_rtr_or_an_r4_type(
    engine: str, quant: str, repacked: bool
) -> None:
    cpu = require_device(Cpu, "threadripper-pro-7975wx", field="x")
    row = _row(engine=engine, quant=quant, model="Qwen3-30B-A3B",
               hardware={"gpu": "RTX 4090", "gpu_count": 1, "cpu": cpu.name, "ram": "256 GB"},
               category="inference_moe_offload")  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.repacked_experts is repacked


def test_a_serving_run_stating_neither_concurrency_nor_prompts_is_not_modeled() -> None:
    workload = {"phase": "serving", "prompt_tokens": 4096, "gen_tokens": 1024}
    prediction = predict_row(_row(workload=workload, engine="vLLM (tp2)",
                                  hardware={"gpu": "RTX 3090", "gpu_count": 2}))  # fmt: skip
    assert not prediction.modeled
    assert "neither its concurrency nor its number of prompts" in prediction.reason
    single = predict_row(_row(workload={**workload, "num_prompts": 1}, engine="vLLM",
                              hardware={"gpu": "RTX 3090", "gpu_count": 1}))  # fmt: skip
    assert "neither" not in (single.reason or "")


@pytest.mark.parametrize(
    ("workload", "prompt", "gen"),
    [({"test": "8k in / 1k out"}, 8192, 1024),
     ({"test": "1024 in / 128 out"}, 1024, 128),
     # vllm bench serve's printed totals over its successful requests (a ShareGPT run)
     ({"successful_requests": 1000, "total_input_tokens": 219171,
       "total_output_tokens": 200752}, 219, 201)],
)  # fmt: skip
def test_a_serving_rows_lengths_are_stated_or_the_means_of_its_printed_totals(
    workload: dict[str, Any], prompt: int, gen: int
) -> None:
    row = _row(engine="vLLM 0.11", category="serving_batched",
               workload={"phase": "serving", "concurrency": 8, **workload})  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.prompt_tokens == prompt
    assert setup.request.workload.output_tokens == gen


def test_totals_without_the_request_count_leave_the_lengths_unknown() -> None:
    workload = {"phase": "serving", "concurrency": 8, "total_input_tokens": 219171,
                "total_output_tokens": 200752}  # fmt: skip
    prediction = predict_row(_row(engine="vLLM", category="serving_batched", workload=workload))
    assert not prediction.modeled
    assert "prompt and output lengths" in prediction.reason


def test_a_custom_mix_is_its_first_named_type_scaled_to_the_stated_file_size() -> None:
    row = _row(quant="custom IQ4_XS experts / Q5_K attn (15.4 GiB)", model="Qwen3-30B-A3B")
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    w = setup.request.workload
    stored = sum(s.stored_bytes for s in place(model_parts(w.model), w.quant, "gpu").shares)
    assert stored == pytest.approx(15.4 * 2**30, rel=1e-6)


def test_a_training_row_without_its_sequence_length_is_not_modeled_with_the_reason() -> None:
    row = _row(category="training_finetune", engine="torchtune", model="Llama 3.1 8B",
               quant="BF16", unit="toks/s",
               workload={"phase": "train", "method": "LoRA", "batch_size": 2})  # fmt: skip
    prediction = predict_row(row)
    assert not prediction.modeled
    assert prediction.reason.startswith("the row states no sequence length")


@pytest.mark.parametrize(
    ("named", "found"),
    [("NVIDIA GeForce RTX 5080", True), ("NVIDIA GeForce RTX 5080 SUPER", False),
     ("RTX 4080 SUPER 16GB", True), ("AMD Radeon RX 7900 XTX", True)],
)  # fmt: skip
def test_a_card_named_with_another_tier_is_not_the_base_card(named: str, found: bool) -> None:
    """ "RTX 5080 SUPER" holds "RTX 5080" but is another card, with no record of its own."""
    prediction = predict_row(_row(hardware={"gpu": named, "gpu_count": 1}))
    assert ("no datasheet entry" not in (prediction.reason or "")) is found


@pytest.mark.parametrize(
    ("system", "runtime"),
    [("Apple M2 Ultra 192GB", "llama.cpp-metal"), ("NVIDIA DGX Spark (GB10), 128 GB", "llama.cpp")],
)
def test_llama_cpp_named_on_an_apple_system_is_its_metal_backend(system: str, runtime: str) -> None:
    """llama.cpp's docs/build.md: "On MacOS, Metal is enabled by default"."""
    row = _row(engine="llama.cpp (llama-bench)", hardware={"system": system},
               category="inference_apple_silicon")  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.runtime == runtime
    assert predict_row(row).runtime == runtime


def test_a_prompt_printed_in_thousands_is_read_as_its_tokens() -> None:
    """A script that prints "21K" prompt tokens ran a prompt of about 21,000: a prefill of
    that length, and a decode after it (its mean context 21,000 + half the output)."""
    prefill = row_setup(_row(workload={"phase": "prefill", "batch": 1,
                                       "test": "prompt tokens '21K' (as printed)"}))  # fmt: skip
    decode = row_setup(_row(workload={"phase": "decode", "batch": 1, "gen_tokens": 512,
                                      "test": "prompt tokens '21K' (as printed)"}))  # fmt: skip
    assert isinstance(prefill, InferSetup)
    assert isinstance(decode, InferSetup)
    assert prefill.request.workload.prompt_tokens == 21000
    assert decode.request.workload.context == 21000 + 256


@pytest.mark.parametrize(("quant", "bits"), [("IQ4_XS_R4", 4.25), ("i1-Q4_K_M", None)])
def test_repacked_and_imatrix_types_read_as_their_base_types_bytes(
    quant: str, bits: float | None
) -> None:
    """ik_llama.cpp's _R4 repacks interleave four rows' blocks (the base type's bytes);
    "i1-" names a quant chosen with an importance matrix, whose type follows the prefix."""
    setup = row_setup(_row(quant=quant))
    assert isinstance(setup, InferSetup)
    scheme = setup.request.workload.quant
    base = weight_scheme(quant.removeprefix("i1-").removesuffix("_R4"))
    assert scheme.dense.bits_per_weight == (bits or base.dense.bits_per_weight)
    assert scheme.dense.bits_per_weight == base.dense.bits_per_weight


def test_experts_of_two_types_read_as_the_first_scaled_to_the_file() -> None:
    row = _row(model="Qwen3-30B-A3B", quant="IQ4_K_R4/IQ5_K_R4 experts + Q8_0 (17.57 GiB)")
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    plain = row_setup(_row(model="Qwen3-30B-A3B", quant="IQ4_K_R4"))
    assert isinstance(plain, InferSetup)
    assert setup.request.workload.quant != plain.request.workload.quant  # scaled to 17.57 GiB


def test_a_gguf_file_type_with_its_size_stated_reads_as_that_many_bytes() -> None:
    """llama.cpp's file types mix tensor types (an IQ3_XXS file keeps some tensors at other
    bits): the bytes read are the file's stated size, not 3.06 bits per weight."""
    row = _row(
        model="DeepSeek V4 (deepseek4, 284.33 B params per llama-bench)",
        params_total_b=284.33,
        quant="IQ3_XXS (82.87 GiB)",
        hardware={"gpu": "RTX 4090", "gpu_count": 4},
    )
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    scheme = setup.request.workload.quant
    model = setup.request.workload.model
    assert scheme.experts.name == "IQ3_XXS"
    assert stored_bytes(model_parts(model), scheme) == pytest.approx(82.87 * 2**30)


def test_a_repack_of_an_unknown_type_is_refused() -> None:
    """Q8_K is only ggml's intermediate for dot products, so its repack names no weight type."""
    with pytest.raises(EngineInputError, match="unknown weight type 'Q8_K_R8'"):
        weight_scheme("Q8_K_R8")


@pytest.mark.parametrize(("unit", "scale"), [("ms/token", 1000.0), ("ms per token", 1000.0),
                                             ("s/tok", 1.0)])  # fmt: skip
def test_one_sequences_time_per_token_is_the_inverse_of_its_speed(unit: str, scale: float) -> None:
    """llama.cpp's "ms per token" timings: one sequence's decode at 100 tok/s is 10 ms/token;
    the prediction is published in the row's unit, so its error is the time's."""
    speed = predict_row(_row(unit="tok/s", value=100.0))
    latency = predict_row(_row(unit=unit, value=scale / 100.0))
    assert speed.predicted is not None
    assert latency.modeled
    assert latency.predicted == pytest.approx(scale / speed.predicted)
    assert latency.signed_error == pytest.approx(100.0 / speed.predicted - 1)


def test_a_serving_runs_time_per_output_token_is_not_read_as_a_speed() -> None:
    row = _row(unit="ms/token", workload={"phase": "decode", "test": "tg128", "batch": 8})
    prediction = predict_row(row)
    assert not prediction.modeled
    assert "a latency per token" in prediction.reason


@pytest.mark.parametrize(
    ("gpu", "count"),
    [("2x RTX 3090", 2), ("RTX 4090 x4", 4), ("NVIDIA RTX 3090 (4x)", 4), ("RTX 3090", 1)],
)
def test_a_gpu_count_written_with_the_name_is_read_when_none_is_stated(
    gpu: str, count: int
) -> None:
    setup = row_setup(_row(hardware={"gpu": gpu}))
    assert isinstance(setup, InferSetup)
    assert setup.request.hardware.gpu_count == count
    stated = row_setup(_row(hardware={"gpu": gpu, "gpu_count": 1}))
    assert isinstance(stated, InferSetup)
    assert stated.request.hardware.gpu_count == 1
