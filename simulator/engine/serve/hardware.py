"""Hardware as inference sees it: where weights can live, how fast each place reads them, and
how much arithmetic each place does; plus the one set of constants per device class.

Bandwidths are GB/s (10⁹ bytes/s) and capacities GiB, as the request gives them.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1024**3
GB = 1e9
TERA = 1e12
GIGA = 1e9

GPU, CPU, UNIFIED = "gpu", "cpu", "unified"
LOCATIONS = (GPU, CPU, UNIFIED)

# What each device class reaches of its datasheet figures in llama.cpp-style inference. One
# set per class, chosen once over all of seeds 002 and 003 (docs/model.md, "Inference"):
#  - bandwidth_efficiency: sustained fraction of peak memory bandwidth in weight/KV reads
#    (STREAM-like; GPUs reach 70–90 %, a 12-channel EPYC ~80 %);
#  - flops_efficiency: fraction of peak FLOPS a prefill GEMM or attention reaches;
#  - layer_overhead_s: fixed time per layer per token (GPU: ~30 kernel launches of ~4 µs;
#    CPU: one thread barrier per op, ~30 ops of ~3 µs).


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceClass:
    name: str
    bandwidth_efficiency: float
    flops_efficiency: float
    layer_overhead_s: float


DEVICE_CLASSES: dict[str, DeviceClass] = {
    c.name: c
    for c in (
        DeviceClass(
            name=GPU, bandwidth_efficiency=0.70, flops_efficiency=0.25, layer_overhead_s=120e-6
        ),
        DeviceClass(
            name=CPU, bandwidth_efficiency=0.70, flops_efficiency=0.40, layer_overhead_s=100e-6
        ),
        DeviceClass(
            name=UNIFIED, bandwidth_efficiency=0.70, flops_efficiency=0.25, layer_overhead_s=120e-6
        ),
    )
}


@dataclass(frozen=True, slots=True, kw_only=True)
class InferGpu:
    """`count` identical GPUs; layers split across them (llama.cpp `--split-mode layer`)."""

    name: str
    vram_gib: float
    mem_gbps: float
    tflops: float
    count: int = 1
    pcie_gbps: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class CpuSpec:
    """`flops_per_core_cycle`: FP32 FLOPs per core per cycle, an FMA counting two."""

    name: str
    cores: int
    mem_gbps: float
    flops_per_core_cycle: float
    ghz: float

    @property
    def peak_flops(self) -> float:
        return self.cores * self.flops_per_core_cycle * self.ghz * GIGA


@dataclass(frozen=True, slots=True, kw_only=True)
class UnifiedSpec:
    """Apple-silicon-style memory shared by CPU and GPU; `tflops` of its GPU (FP16)."""

    name: str
    mem_gib: float
    mem_gbps: float
    tflops: float


@dataclass(frozen=True, slots=True, kw_only=True)
class InferHardware:
    gpu: InferGpu | None = None
    cpu: CpuSpec | None = None
    unified: UnifiedSpec | None = None
    ram_gib: float = 0.0
    link_gbps: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Device:
    """One place weights live: its class, read bandwidth (bytes/s), peak FLOPS and bytes.
    `constants`: the runtime's efficiencies on this class (efficiency.py); None → the
    class defaults."""

    location: str
    bandwidth_bps: float
    peak_flops: float
    capacity_bytes: float
    constants: DeviceClass | None = None

    @property
    def device_class(self) -> DeviceClass:
        return self.constants or DEVICE_CLASSES[self.location]


# Apple caps what the GPU may wire at ~75 % of unified memory by default (Metal's
# recommendedMaxWorkingSetSize on machines above 36 GB; `iogpu.wired_limit_mb` raises it).
UNIFIED_GPU_FRACTION = 0.75
# CUDA context, cuBLAS workspace and llama.cpp compute buffers kept back on each GPU.
GPU_RESERVE_GIB = 1.0


def gpu_device(gpu: InferGpu, constants: DeviceClass | None = None) -> Device:
    """Layer split: each token visits the GPUs one after another, so one GPU's bandwidth and
    FLOPS set the pace while their memory adds up."""
    usable = (gpu.vram_gib - GPU_RESERVE_GIB) * gpu.count
    return Device(
        location=GPU,
        bandwidth_bps=gpu.mem_gbps * GB,
        peak_flops=gpu.tflops * TERA,
        capacity_bytes=max(usable, 0.0) * GIB,
        constants=constants,
    )


def cpu_device(cpu: CpuSpec, ram_gib: float, constants: DeviceClass | None = None) -> Device:
    return Device(
        location=CPU,
        bandwidth_bps=cpu.mem_gbps * GB,
        peak_flops=cpu.peak_flops,
        capacity_bytes=ram_gib * GIB,
        constants=constants,
    )


def unified_device(unified: UnifiedSpec, constants: DeviceClass | None = None) -> Device:
    return Device(
        location=UNIFIED,
        bandwidth_bps=unified.mem_gbps * GB,
        peak_flops=unified.tflops * TERA,
        capacity_bytes=unified.mem_gib * UNIFIED_GPU_FRACTION * GIB,
        constants=constants,
    )
