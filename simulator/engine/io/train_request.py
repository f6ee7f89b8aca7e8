"""The workload section of a training request (`"kind": "train"`, the default), validated
into a `TrainWorkload`; errors name the JSON path of the bad value."""

from __future__ import annotations

from collections.abc import Mapping

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import FP8_NAME, quant_format
from simulator.engine.io.fields import (
    choice,
    integer,
    number,
    optional_integer,
    require_known_fields,
)
from simulator.engine.io.model import workload_model
from simulator.engine.model.config import ModelShape
from simulator.engine.model.lora import ALL_TARGETS, DEFAULT_LORA_RANK, LoraConfig
from simulator.engine.train.memory import MAX_MICRO_BATCH
from simulator.engine.train.workload import (
    DEFAULT_MODE,
    DEFAULT_OPTIMIZER,
    DEFAULT_SEQ_LEN,
    DEFAULT_UTILIZATION,
    MODE_REFERENCE,
    MODE_REFINED,
    NO_OFFLOAD,
    OFFLOADS,
    OPTIMIZERS,
    PARALLELISMS,
    PIPELINE,
    TRAIN,
    TrainWorkload,
    untrainable_reason,
)

MAX_SEQ_LEN = 131072
MAX_LORA_RANK = 4096
MAX_MICRO_BATCHES = 1024
MAX_MICRO_BATCH_CAP = 65536  # sequences per micro-batch; far above any VRAM today
MAX_TENSOR_PARALLEL = 64  # GPUs splitting one layer; NVLink domains stop at 72
MAX_PIPELINE_PARALLEL = 64  # pipeline stages: at most hardware.gpu_count's own limit
MAX_VIRTUAL_STAGES = 128  # chunks of layers per GPU; checked against the model's layers
MAX_TOKENS = 10**15
# Below 1 % of peak no training stack runs; the fraction multiplies every compute time.
MIN_UTILIZATION = 0.01
TRAIN_MODES = (MODE_REFERENCE, MODE_REFINED)
FULL_FINETUNE_FORMATS = ("BF16", FP8_NAME)


# The fields a training workload may have; any other is refused, never silently ignored.
TRAIN_WORKLOAD_FIELDS = frozenset({
    "kind", "model", "model_config", "quant", "seq_len", "lora_rank", "lora_targets", "tokens",
    "mode", "utilization", "micro_batches", "max_micro_batch", "activation_checkpointing",
    "parallelism", "full_finetune", "optimizer", "tensor_parallel", "offload",
    "pipeline_parallel", "virtual_stages",
})  # fmt: skip


def _lora(workload: Mapping[str, object]) -> LoraConfig:
    rank = integer(workload, "lora_rank", "workload", DEFAULT_LORA_RANK, upper=MAX_LORA_RANK)
    targets = workload.get("lora_targets", list(ALL_TARGETS))
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise EngineInputError(field="workload.lora_targets", message="must be a list of names")
    return LoraConfig(rank=rank, targets=tuple(targets))


def _checkpointing(workload: Mapping[str, object], mode: str) -> bool:
    """`activation_checkpointing` (default true); reference mode is seed 000's equations, which
    always checkpoint."""
    value = workload.get("activation_checkpointing", True)
    field = "workload.activation_checkpointing"
    if not isinstance(value, bool):
        raise EngineInputError(field=field, message="must be true or false")
    if not value and mode == MODE_REFERENCE:
        raise EngineInputError(
            field=field, message="reference mode always checkpoints; use mode 'refined'"
        )
    return value


def _full_finetune(workload: Mapping[str, object], quant: str) -> bool:
    value = workload.get("full_finetune", False)
    if not isinstance(value, bool):
        raise EngineInputError(field="workload.full_finetune", message="must be true or false")
    if value and quant.upper() not in FULL_FINETUNE_FORMATS:
        raise EngineInputError(
            field="workload.full_finetune",
            message="full fine-tuning trains BF16 weights: use quant 'BF16' (or 'FP8' for FP8 "
            "GEMMs on them)",
        )
    return value


def _trainable_model(workload: Mapping[str, object]) -> ModelShape:
    """The workload's model, refused when its layers have no training rule
    (`untrainable_reason`); serving describes them."""
    model = workload_model(workload)
    reason = untrainable_reason(model)
    if reason is not None:
        raise EngineInputError(field="workload.model", message=f"{reason}; serving does")
    return model


def parse_train_workload(workload: Mapping[str, object]) -> TrainWorkload:
    path = "workload"
    require_known_fields(workload, TRAIN_WORKLOAD_FIELDS, path)
    choice(workload, "kind", path, (TRAIN,), TRAIN)
    quant = workload.get("quant")
    if not isinstance(quant, str):
        raise EngineInputError(field="workload.quant", message="must be a format name")
    mode = choice(workload, "mode", path, TRAIN_MODES, DEFAULT_MODE)
    return TrainWorkload(
        model=_trainable_model(workload),
        quant=quant_format(quant),
        lora=_lora(workload),
        seq_len=integer(workload, "seq_len", path, DEFAULT_SEQ_LEN, upper=MAX_SEQ_LEN),
        utilization=number(
            workload, "utilization", path, DEFAULT_UTILIZATION, lower=MIN_UTILIZATION, upper=1.0
        ),
        tokens=optional_integer(workload, "tokens", path, upper=MAX_TOKENS),
        micro_batches=optional_integer(workload, "micro_batches", path, upper=MAX_MICRO_BATCHES),
        max_micro_batch=integer(
            workload, "max_micro_batch", path, MAX_MICRO_BATCH, upper=MAX_MICRO_BATCH_CAP
        ),
        mode=mode,
        activation_checkpointing=_checkpointing(workload, mode),
        parallelism=choice(workload, "parallelism", path, PARALLELISMS, PIPELINE),
        full_finetune=_full_finetune(workload, quant),
        optimizer=choice(workload, "optimizer", path, OPTIMIZERS, DEFAULT_OPTIMIZER),
        tensor_parallel=integer(workload, "tensor_parallel", path, 1, upper=MAX_TENSOR_PARALLEL),
        pipeline_parallel=integer(
            workload, "pipeline_parallel", path, 1, upper=MAX_PIPELINE_PARALLEL
        ),
        virtual_stages=integer(workload, "virtual_stages", path, 1, upper=MAX_VIRTUAL_STAGES),
        offload=choice(workload, "offload", path, OFFLOADS, NO_OFFLOAD),
    )
