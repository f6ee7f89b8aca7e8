"""The hardware section of a request, read into the one hardware description and written
back: devices by name from the device table or as objects of their figures.

Each kind of workload reads what it needs of the section; `HARDWARE_DEFAULTS` holds what a
kind assumes when a field is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from simulator.engine.devices import Cpu, Device, Gpu, System, find_device, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import (
    DEFAULT_GPU_MAKER,
    DEFAULT_SYSTEM_MAKER,
    NVME_GEN4_X1_GBPS,
    CpuSpec,
    GpuSpec,
    Hardware,
    UnifiedSpec,
    default_pinned_gib,
    gpu_spec,
)
from simulator.engine.io.fields import integer, number, require_known_fields
from simulator.engine.serve.workload import INFER
from simulator.engine.train.workload import TRAIN

MAX_GPU_COUNT = 64
MAX_MACHINES = 64
MAX_CORES = 1024
MAX_COMPUTE_UNITS = 4096  # SMs / CUs of one GPU (an MI300X has 304)
MAX_GHZ = 10.0
HARDWARE_FIELDS = frozenset(
    {
        "gpu",
        "gpu_count",
        "nvme_gbps",
        "ram_gb",
        "pinned_gb",
        "cpu",
        "unified",
        "link_gbps",
        "interconnect_gbps",
        "machines",
        "network_gbit_per_s",
    }
)
GPU_FIELDS = frozenset(
    {"name", "vram_gb", "bf16_tflops", "pcie_gbps", "fp4", "mem_gbps", "fp16_tflops", "fp8_tflops",
     "bf16_sustained_tflops", "fp8_sustained_tflops", "maker", "compute_units",
     "mem_sustained_gbps", "vector_fp16_tflops"}
)  # fmt: skip
CPU_FIELDS = frozenset({"name", "cores", "mem_gbps", "flops_per_core_cycle", "ghz"})
UNIFIED_FIELDS = frozenset({"name", "mem_gb", "mem_gbps", "tflops", "maker", "mem_sustained_gbps"})
# What a figure may be (inclusive), in its request unit: physical devices sit far inside
# these, and the engine's arithmetic stays finite at both ends.
FIGURE_BOUNDS: dict[str, tuple[float, float]] = {
    "gpu.vram_gb": (0.25, 65_536.0),
    "gpu.bf16_tflops": (0.01, 1_000_000.0),
    "gpu.fp16_tflops": (0.01, 1_000_000.0),
    "gpu.fp8_tflops": (0.01, 1_000_000.0),
    "gpu.vector_fp16_tflops": (0.01, 1_000_000.0),
    "gpu.bf16_sustained_tflops": (0.01, 1_000_000.0),
    "gpu.fp8_sustained_tflops": (0.01, 1_000_000.0),
    "gpu.pcie_gbps": (0.01, 100_000.0),
    "gpu.mem_gbps": (0.1, 1_000_000.0),
    "gpu.mem_sustained_gbps": (0.1, 1_000_000.0),
    "cpu.mem_gbps": (0.1, 1_000_000.0),
    "cpu.flops_per_core_cycle": (1.0, 4_096.0),
    "cpu.ghz": (0.1, MAX_GHZ),
    "unified.mem_gb": (0.25, 1_048_576.0),
    "unified.mem_gbps": (0.1, 1_000_000.0),
    "unified.mem_sustained_gbps": (0.1, 1_000_000.0),
    "unified.tflops": (0.01, 1_000_000.0),
    "ram_gb": (0.0, 1_048_576.0),
    "pinned_gb": (0.0, 1_048_576.0),
    "nvme_gbps": (0.01, 100_000.0),
    "link_gbps": (0.01, 100_000.0),
    "interconnect_gbps": (0.01, 100_000.0),
    "network_gbit_per_s": (0.01, 100_000.0),
}
# A measured figure of the device table, and the datasheet figure it was measured against.
MEASURED_OF_PEAK = {"mem_sustained_gbps": "mem_gbps"}
# Host RAM when a request leaves it out, GiB: training assumes seed 000's 32 GB host (Build
# A); serving assumes none, so a CPU placement needs `ram_gb` stated.
HARDWARE_DEFAULTS: dict[str, dict[str, float]] = {TRAIN: {"ram_gb": 32.0}, INFER: {"ram_gb": 0.0}}
# The sections each kind writes back (and so hashes): what its rules read.
ECHOED: dict[str, tuple[str, ...]] = {
    TRAIN: ("gpu", "gpu_count", "nvme_gbps", "ram_gb", "pinned_gb", "interconnect_gbps", "cpu"),
    INFER: (
        "ram_gb",
        "link_gbps",
        "gpu",
        "gpu_count",
        "cpu",
        "unified",
        "machines",
        "network_gbit_per_s",
    ),
}


def device_figures(
    value: object,
    kind: type[Device],
    *,
    path: str,
    fields: frozenset[str],
    table: Callable[[Device], Mapping[str, object]],
    required: tuple[str, ...],
) -> Mapping[str, object]:
    """The figures of a device given by name (slug, name or alias of the device table) or as
    an object. An object naming a known device takes the table's figures for those it omits;
    one naming an unknown device without every `required` figure is refused with the closest
    known names, as a bare unknown name is."""
    if isinstance(value, str):
        return table(require_device(kind, value, field=path))
    if not isinstance(value, Mapping):
        raise EngineInputError(field=path, message="must be a name or an object")
    require_known_fields(value, fields, path)
    name = value.get("name")
    if name is not None and not isinstance(name, str):  # else shown as str(name): "[4090]"
        raise EngineInputError(field=f"{path}.name", message="must be a string")
    known = find_device(kind, name) if isinstance(name, str) else None
    if known is not None:
        stated = {key: v for key, v in value.items() if v is not None}
        recorded = table(known)
        merged = {**recorded, **stated}
        for measured, peak in MEASURED_OF_PEAK.items():
            # a table's measurement is of the table's memory, not of another peak the request
            # states for it: that GPU takes the prior share instead
            if measured not in stated and merged.get(peak) != recorded.get(peak):
                merged.pop(measured, None)
        return merged
    if isinstance(name, str) and any(value.get(key) is None for key in required):
        require_device(kind, name, field=f"{path}.name")
    return value


def _gpu_table(device: Gpu) -> dict[str, object]:
    return gpu_to_json(gpu_spec(device))


def _cpu_table(device: Cpu) -> dict[str, object]:
    return {"name": device.name, "cores": device.cores, "mem_gbps": device.mem_gbps,
            "flops_per_core_cycle": device.flops_per_core_cycle,
            "ghz": device.all_core_ghz}  # fmt: skip


def _system_table(device: System) -> dict[str, object]:
    return {"name": device.name, "mem_gb": device.memory_gb,
            "mem_gbps": device.mem_bandwidth_gbps, "tflops": device.gpu_tflops,
            "maker": device.manufacturer,
            **_known("mem_sustained_gbps", device.mem_sustained_gbps)}  # fmt: skip


def _maker(figures: Mapping[str, object], path: str, default: str) -> str:
    maker = figures.get("maker", default)
    if not isinstance(maker, str) or not maker.strip():
        raise EngineInputError(field=f"{path}.maker", message="must be a non-empty string")
    return maker


def _figure(section: Mapping[str, object], name: str, default: float | None = None) -> float:
    """The figure `name` ("gpu.vram_gb", "ram_gb") of a hardware section, within its bounds."""
    path, _, key = f"hardware.{name}".rpartition(".")
    lower, upper = FIGURE_BOUNDS[name]
    return number(section, key, path, default, lower=lower, upper=upper)


def parse_gpu(value: object) -> GpuSpec:
    """A GPU by name from the device table, or an object of its figures."""
    path = "hardware.gpu"
    figures = device_figures(
        value, Gpu, path=path, fields=GPU_FIELDS, table=_gpu_table,
        required=("vram_gb", "bf16_tflops", "pcie_gbps"),
    )  # fmt: skip
    fp4 = figures.get("fp4", False)
    if not isinstance(fp4, bool):
        raise EngineInputError(field=f"{path}.fp4", message="must be true or false")
    mem_gbps = figures.get("mem_gbps")
    fp16, fp8 = figures.get("fp16_tflops"), figures.get("fp8_tflops")
    vector_fp16 = figures.get("vector_fp16_tflops")
    bf16_sustained = figures.get("bf16_sustained_tflops")
    fp8_sustained = figures.get("fp8_sustained_tflops")
    if fp8_sustained is not None and fp8 is None:
        raise EngineInputError(
            field=f"{path}.fp8_sustained_tflops", message="needs fp8_tflops (the FP8 peak)"
        )
    return GpuSpec(
        name=str(figures.get("name") or "GPU"),
        vram_gib=_figure(figures, "gpu.vram_gb"),
        bf16_tflops=_figure(figures, "gpu.bf16_tflops"),
        pcie_gbps=_figure(figures, "gpu.pcie_gbps"),
        fp4=fp4,
        mem_gbps=None if mem_gbps is None else _figure(figures, "gpu.mem_gbps"),
        fp16_tflops=None if fp16 is None else _figure(figures, "gpu.fp16_tflops"),
        fp8_tflops=None if fp8 is None else _figure(figures, "gpu.fp8_tflops"),
        vector_fp16_tflops=(
            None if vector_fp16 is None else _figure(figures, "gpu.vector_fp16_tflops")
        ),
        bf16_sustained_tflops=(
            None if bf16_sustained is None else _figure(figures, "gpu.bf16_sustained_tflops")
        ),
        fp8_sustained_tflops=(
            None if fp8_sustained is None else _figure(figures, "gpu.fp8_sustained_tflops")
        ),
        maker=_maker(figures, path, DEFAULT_GPU_MAKER),
        compute_units=(
            None
            if figures.get("compute_units") is None
            else integer(figures, "compute_units", path, None, upper=MAX_COMPUTE_UNITS)
        ),
        mem_sustained_gbps=_sustained_bandwidth(figures, "gpu", path),
    )


def parse_cpu(value: object) -> CpuSpec:
    """A CPU by name from the device table (every memory channel at its rated speed), or an
    object of its figures."""
    path = "hardware.cpu"
    figures = device_figures(
        value, Cpu, path=path, fields=CPU_FIELDS, table=_cpu_table,
        required=("cores", "mem_gbps", "flops_per_core_cycle", "ghz"),
    )  # fmt: skip
    return CpuSpec(
        name=str(figures.get("name") or "CPU"),
        cores=integer(figures, "cores", path, None, upper=MAX_CORES),
        mem_gbps=_figure(figures, "cpu.mem_gbps"),
        flops_per_core_cycle=_figure(figures, "cpu.flops_per_core_cycle"),
        ghz=_figure(figures, "cpu.ghz"),
    )


def parse_unified(value: object) -> UnifiedSpec:
    """A whole system (unified memory). A chip-only record has no memory size: `mem_gb`."""
    path = "hardware.unified"
    figures = device_figures(
        value, System, path=path, fields=UNIFIED_FIELDS, table=_system_table,
        required=("mem_gb", "mem_gbps", "tflops"),
    )  # fmt: skip
    return UnifiedSpec(
        name=str(figures.get("name") or "Unified memory"),
        mem_gib=_figure(figures, "unified.mem_gb"),
        mem_gbps=_figure(figures, "unified.mem_gbps"),
        tflops=_figure(figures, "unified.tflops"),
        maker=_maker(figures, path, DEFAULT_SYSTEM_MAKER),
        mem_sustained_gbps=_sustained_bandwidth(figures, "unified", path),
    )


def _sustained_bandwidth(figures: Mapping[str, object], section: str, path: str) -> float | None:
    """A measured streaming bandwidth: at most the peak (`mem_gbps`), which it needs."""
    if figures.get("mem_sustained_gbps") is None:
        return None
    field = f"{path}.mem_sustained_gbps"
    if figures.get("mem_gbps") is None:
        raise EngineInputError(field=field, message="needs mem_gbps (the peak bandwidth)")
    value = _figure(figures, f"{section}.mem_sustained_gbps")
    if value > _figure(figures, f"{section}.mem_gbps"):
        raise EngineInputError(
            field=field, message="must be at most mem_gbps: no memory sustains more than its peak"
        )
    return value


def _optional(hardware: Mapping[str, object], key: str, parse: Callable[[object], Any]) -> Any:
    return None if hardware.get(key) is None else parse(hardware[key])


def parse_hardware(hardware: Mapping[str, object], *, kind: str = TRAIN) -> Hardware:
    """The hardware section as `kind`'s rules read it: training needs a GPU; serving needs
    the GPU's memory bandwidth when it has one, and crosses the GPU's own PCIe link unless
    `link_gbps` says otherwise."""
    path = "hardware"
    require_known_fields(hardware, HARDWARE_FIELDS, path)
    beside = [key for key in ("gpu", "cpu") if hardware.get(key) is not None]
    if hardware.get("unified") is not None and beside:
        # A whole system is the machine: its GPU and CPU share its memory, and the engine
        # models no second device beside it (a PC's GPU is `gpu` with `cpu`, without it).
        raise EngineInputError(
            field="hardware.unified",
            message=f"is a whole system, its own GPU and CPU: give it without hardware."
            f"{' or hardware.'.join(beside)}, or describe a PC without it",
        )
    if kind == TRAIN and hardware.get("gpu") is None:
        raise EngineInputError(field="hardware.gpu", message="must be a name or an object")
    gpu: GpuSpec | None = _optional(hardware, "gpu", parse_gpu)
    if kind == TRAIN and gpu is not None and gpu.maker != DEFAULT_GPU_MAKER:
        # The training constants are PyTorch's on CUDA, fitted on NVIDIA runs only.
        raise EngineInputError(
            field="hardware.gpu",
            message=f"the training engine's constants are fitted on NVIDIA GPUs (PyTorch on "
            f"CUDA); no published fine-tuning run on a {gpu.maker} GPU could be modeled yet",
        )
    if kind == INFER and gpu is not None and gpu.mem_gbps is None:
        raise EngineInputError(field="hardware.gpu.mem_gbps", message="is required")
    ram = _figure(hardware, "ram_gb", HARDWARE_DEFAULTS[kind]["ram_gb"])
    pinned = _figure(hardware, "pinned_gb", default_pinned_gib(ram))
    if pinned > ram:
        raise EngineInputError(field="hardware.pinned_gb", message="must not exceed ram_gb")
    link = None if gpu is None else gpu.pcie_gbps
    if gpu is not None or hardware.get("link_gbps") is not None:
        link = _figure(hardware, "link_gbps", link)
    machines, network = _machines(hardware, kind)
    return Hardware(
        gpu=gpu,
        gpu_count=integer(hardware, "gpu_count", path, 1, upper=MAX_GPU_COUNT),
        cpu=_optional(hardware, "cpu", parse_cpu),
        unified=_optional(hardware, "unified", parse_unified),
        ram_gib=ram,
        pinned_gib=pinned,
        nvme_gbps=_figure(hardware, "nvme_gbps", NVME_GEN4_X1_GBPS),
        link_gbps=0.0 if link is None else link,
        interconnect_gbps=None
        if hardware.get("interconnect_gbps") is None
        else _figure(hardware, "interconnect_gbps"),
        machines=machines,
        network_gbit_per_s=network,
    )


def _machines(hardware: Mapping[str, object], kind: str) -> tuple[int, float | None]:
    """(machines, network Gbit/s): several machines need the network between them, one has
    none to state, and training runs on one."""
    machines = integer(hardware, "machines", "hardware", 1, upper=MAX_MACHINES)
    stated = hardware.get("network_gbit_per_s") is not None
    if machines > 1 and kind == TRAIN:
        raise EngineInputError(
            field="hardware.machines",
            message="training runs on one machine: the engine models no training across a network",
        )
    if machines > 1 and not stated:
        raise EngineInputError(
            field="hardware.network_gbit_per_s",
            message=f"is required: {machines} machines send each token's hidden state over it",
        )
    if machines == 1 and stated:
        raise EngineInputError(
            field="hardware.network_gbit_per_s",
            message="needs machines ≥ 2: one machine sends nothing over a network",
        )
    return machines, _figure(hardware, "network_gbit_per_s") if stated else None


def _known(key: str, value: float | None) -> dict[str, float]:
    return {} if value is None else {key: float(value)}


def gpu_to_json(gpu: GpuSpec) -> dict[str, Any]:
    return {
        "name": gpu.name,
        "vram_gb": float(gpu.vram_gib),
        "bf16_tflops": float(gpu.bf16_tflops),
        "pcie_gbps": float(gpu.pcie_gbps),
        "fp4": bool(gpu.fp4),
        "mem_gbps": None if gpu.mem_gbps is None else float(gpu.mem_gbps),
        # only when known, so requests without it keep their input hash
        **({} if gpu.fp16_tflops is None else {"fp16_tflops": float(gpu.fp16_tflops)}),
        **({} if gpu.fp8_tflops is None else {"fp8_tflops": float(gpu.fp8_tflops)}),
        **_known("vector_fp16_tflops", gpu.vector_fp16_tflops),
        **_known("bf16_sustained_tflops", gpu.bf16_sustained_tflops),
        **_known("fp8_sustained_tflops", gpu.fp8_sustained_tflops),
        **({} if gpu.maker == DEFAULT_GPU_MAKER else {"maker": gpu.maker}),
        **({} if gpu.compute_units is None else {"compute_units": int(gpu.compute_units)}),
        **_known("mem_sustained_gbps", gpu.mem_sustained_gbps),
    }


def _cpu_to_json(cpu: CpuSpec) -> dict[str, Any]:
    return {"name": cpu.name, "cores": int(cpu.cores), "mem_gbps": float(cpu.mem_gbps),
            "flops_per_core_cycle": float(cpu.flops_per_core_cycle),
            "ghz": float(cpu.ghz)}  # fmt: skip


def _unified_to_json(unified: UnifiedSpec) -> dict[str, Any]:
    maker = {} if unified.maker == DEFAULT_SYSTEM_MAKER else {"maker": unified.maker}
    return {"name": unified.name, "mem_gb": float(unified.mem_gib),
            "mem_gbps": float(unified.mem_gbps), "tflops": float(unified.tflops),
            **maker, **_known("mem_sustained_gbps", unified.mem_sustained_gbps)}  # fmt: skip


def hardware_to_json(hw: Hardware, *, kind: str) -> dict[str, Any]:
    """The normalized hardware section `kind` reads (`parse_hardware` reads it back); parts
    the machine does not have are left out."""
    full: dict[str, Any] = {
        "gpu": None if hw.gpu is None else gpu_to_json(hw.gpu),
        "gpu_count": int(hw.gpu_count) if hw.gpu is not None or kind == TRAIN else None,
        "nvme_gbps": float(hw.nvme_gbps),
        "ram_gb": float(hw.ram_gib),
        "pinned_gb": float(hw.pinned_gib),
        "link_gbps": float(hw.link_gbps) if hw.link_gbps else None,
        "interconnect_gbps": None if hw.interconnect_gbps is None else float(hw.interconnect_gbps),
        # only for several machines, so one machine's requests keep their input hash
        "machines": int(hw.machines) if hw.machines > 1 else None,
        "network_gbit_per_s": None
        if hw.network_gbit_per_s is None
        else float(hw.network_gbit_per_s),
        "cpu": None if hw.cpu is None else _cpu_to_json(hw.cpu),
        "unified": None if hw.unified is None else _unified_to_json(hw.unified),
    }
    return {key: full[key] for key in ECHOED[kind] if full[key] is not None}
