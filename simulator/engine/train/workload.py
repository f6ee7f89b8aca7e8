"""What to simulate: a QLoRA training job on one model."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import QuantFormat
from simulator.engine.model.config import CSA, ModelShape
from simulator.engine.model.lora import LoraConfig
from simulator.engine.train.compute import EagerTraffic
from simulator.engine.train.memory import MAX_MICRO_BATCH

DEFAULT_SEQ_LEN = 1024  # seed 000: every table uses S = 1024
DEFAULT_UTILIZATION = 0.70  # seed 000 "Simulation parameter"
MODE_REFERENCE, MODE_REFINED = "reference", "refined"
# The mode a request gets when it names none: refined, whose cross-validated error on the
# corpus's fine-tuning rows is the smaller (docs/accuracy.md, "One headline training speed");
# reference mode stays seed 000's equations, bit-exact, as a labelled comparison.
DEFAULT_MODE = MODE_REFINED
TRAIN = "train"
# How several GPUs share the work: the seed's layer pipeline, or data parallel with the model
# replicated (DDP), its optimizer state sharded (ZeRO-1, Megatron's distributed optimizer),
# its gradients too (ZeRO-2), or everything sharded (FSDP / ZeRO-3) (train/data_parallel.py).
PIPELINE, DDP, ZERO1, ZERO2, FSDP = "pipeline", "ddp", "zero1", "zero2", "fsdp"
DATA_PARALLELISMS = (DDP, ZERO1, ZERO2, FSDP)
PARALLELISMS = (PIPELINE, *DATA_PARALLELISMS)
OPTIMIZERS = ("adamw", "adamw-bf16", "adamw8bit-in-backward")
# Training state held in host RAM (train/offload.py): none, the gradients and optimizer state
# (ZeRO-Offload), or the weights too (ZeRO-3 offload_param, FSDP CPUOffload).
NO_OFFLOAD, OFFLOAD_OPTIMIZER, OFFLOAD_PARAMETERS = "none", "optimizer", "parameters"
OFFLOADS = (NO_OFFLOAD, OFFLOAD_OPTIMIZER, OFFLOAD_PARAMETERS)
DEFAULT_OPTIMIZER = "adamw"


def require_data_parallelism(workload: TrainWorkload, *, field: str, what: str) -> None:
    """`what` (a rule of data-parallel training) refused on the seed's layer pipeline."""
    if workload.parallelism not in DATA_PARALLELISMS:
        names = ", ".join(f"'{name}'" for name in DATA_PARALLELISMS)
        raise EngineInputError(
            field=field,
            message=f"{what} runs with a data parallelism ({names}), not the layer pipeline",
        )


def untrainable_reason(model: ModelShape) -> str | None:
    """Why the training engine cannot describe `model` (None: it can). Its activations and
    backward pass are one softmax-attention layer shape's: a Gated DeltaNet layer's chunked
    backward (its state recomputed per chunk) and full-attention layers with heads of their
    own (Gemma 4) are not among them."""
    if model.linear_layers:
        return (
            f"{model.display_name} has {model.linear_layers} linear-attention (Gated DeltaNet) "
            "layers, which the training engine does not model"
        )
    if model.attention.kind == CSA:
        return (
            f"{model.display_name}'s compressed attention (a sliding window and compressed "
            "entries, hyper-connections) has no backward pass in the training engine"
        )
    if model.full_attention is not None:
        return (
            f"{model.display_name}'s full-attention layers have an attention shape of their "
            "own, which the training engine (one layer shape) does not model"
        )
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainWorkload:
    model: ModelShape
    quant: QuantFormat
    lora: LoraConfig = field(default_factory=LoraConfig)
    seq_len: int = DEFAULT_SEQ_LEN
    utilization: float = DEFAULT_UTILIZATION
    tokens: int | None = None
    micro_batches: int | None = None  # M per step; None → reference-model.md §8's rule
    max_micro_batch: int = MAX_MICRO_BATCH
    mode: str = MODE_REFERENCE  # the engine's dataclass default; requests default to DEFAULT_MODE
    # Recompute each layer's forward in the backward instead of keeping its activations
    # (seed 000 always does; refined mode may turn it off).
    activation_checkpointing: bool = True
    parallelism: str = PIPELINE
    # Train every weight (gradients and Adam states for all) instead of LoRA adapters on a
    # frozen base; data-parallel only.
    full_finetune: bool = False
    optimizer: str = DEFAULT_OPTIMIZER  # data_parallel.OPTIMIZER_STATE_BYTES
    # GPUs that split each layer's products between them (Megatron tensor parallelism with
    # sequence parallel); the gpu_count / tensor_parallel groups run data parallel.
    tensor_parallel: int = 1
    # Megatron-LM pipeline stages inside each data-parallel group (data_parallel.py's module
    # docstring): P consecutive groups of layers on P GPUs, run 1F1B over the step's
    # micro-batches, each GPU holding `virtual_stages` chunks of its layers (the interleaved
    # schedule, Narayanan et al. 2021 §2.2); gpu_count / (tensor_parallel × pipeline_parallel)
    # groups run data parallel.
    pipeline_parallel: int = 1
    virtual_stages: int = 1
    # The training stack's unfused elementwise traffic (compute.EagerTraffic): bytes each token
    # moves per layer per element of adapter width, apart from the GEMMs. None: fused kernels
    # (the planner's own stack, seed 000), nothing beyond the FLOPs.
    eager_traffic: EagerTraffic | None = None
    offload: str = NO_OFFLOAD  # OFFLOADS

    @property
    def kind(self) -> str:
        return TRAIN

    @property
    def runs_layer_pipeline(self) -> bool:
        """Seed 000's layer pipeline of adapters (reference mode's only run, refined mode's
        curve); data-parallel and tensor-parallel runs and full fine-tuning are not it."""
        return (
            self.parallelism == PIPELINE
            and not self.full_finetune
            and self.tensor_parallel == 1
            and self.pipeline_parallel == 1
            and self.offload == NO_OFFLOAD
        )


def pipeline_micro_batches(gpu_count: int, override: int | None = None) -> int:
    """§8: 1 on one GPU, max(2G, 4) on G > 1 GPUs, unless the request fixes M."""
    if override is not None:
        return override
    return 1 if gpu_count == 1 else max(2 * gpu_count, 4)
