"""A transformers + PEFT LoRA workload for tests (r 16, BF16 base, 2 × 4,096 tokens, no
checkpointing, PEFT's eager traffic) with any field replaced, and H200 machines."""

from dataclasses import replace

from simulator.engine.devices import Gpu, require_device
from simulator.engine.formats.training import quant_format
from simulator.engine.hardware import GpuSpec, Hardware, gpu_spec
from simulator.engine.model.config import ModelShape
from simulator.engine.model.lora import LoraConfig
from simulator.engine.train.compute import PEFT_EAGER_TRAFFIC
from simulator.engine.train.workload import MODE_REFINED, TrainWorkload


def peft_workload(model: ModelShape, **changes: object) -> TrainWorkload:
    base = TrainWorkload(
        model=model,
        quant=quant_format("BF16"),
        lora=LoraConfig(rank=16),
        seq_len=4096,
        max_micro_batch=2,
        mode=MODE_REFINED,
        activation_checkpointing=False,
        eager_traffic=PEFT_EAGER_TRAFFIC,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def gpu(slug: str) -> GpuSpec:
    device = require_device(Gpu, slug, field="gpu")
    assert isinstance(device, Gpu)
    return gpu_spec(device)


def h200(count: int = 1) -> Hardware:
    return Hardware(gpu=gpu("h200-sxm"), gpu_count=count, ram_gib=512.0, pinned_gib=480.0)
