"""Training state kept in host RAM instead of GPU memory (`workload.offload`): the optimizer's
(ZeRO-Offload; DeepSpeed `offload_optimizer: cpu`) or the weights' too (ZeRO-3's
`offload_param`, FSDP's `CPUOffload(offload_params=True)`, torchtune's `fsdp_cpu_offload`).

ZeRO-Offload (Ren et al. 2021, "ZeRO-Offload: Democratizing Billion-Scale Model Training",
§4.1–4.2): the GPU keeps the BF16 weights and runs forward and backward; each micro-batch's
gradients go to host RAM over PCIe as the backward produces them (overlapped with it); at the
end of the step the CPU runs Adam over the FP32 master copy and moments in host RAM and the
updated BF16 weights come back over PCIe before the next forward. The CPU update is
memory-bound: it reads and writes each trained weight's state once, as the GPU's update does
(`data_parallel.optimizer_bytes`), but at the host's memory bandwidth, and every data-parallel
rank's share of it runs at once on the one host, so the host streams the whole state.
Offloading the weights as well puts every stored weight in host RAM: each use of a layer
(forward, backward, recompute) copies its bytes to the GPU over PCIe, prefetched while the
previous layer computes, and the GPU holds only the layers in flight.
"""

from __future__ import annotations

from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import CpuSpec, Hardware
from simulator.engine.train.workload import (
    FSDP,
    NO_OFFLOAD,
    OFFLOAD_PARAMETERS,
    TrainWorkload,
    require_data_parallelism,
)
from simulator.engine.units import GB

# The share of the host's DDR bandwidth a streaming update sustains: the CPU device class's
# bandwidth prior (docs/model.md, "Efficiency constants", cpu η_bw 0.70, chosen on seeds
# 002–003's CPU decode rows, which stream weights the same way).
HOST_STREAM_EFFICIENCY = 0.70


def offloads(workload: TrainWorkload) -> bool:
    return workload.offload != NO_OFFLOAD


def offloads_parameters(workload: TrainWorkload) -> bool:
    return workload.offload == OFFLOAD_PARAMETERS


def require_offload(workload: TrainWorkload, hw: Hardware) -> CpuSpec | None:
    """The CPU that runs the offloaded update (None without offload). Offload is a
    data-parallel stack's (DeepSpeed, FSDP); the weights' offload shards them (FSDP, ZeRO-3);
    the CPU's memory bandwidth sets the update's time, so the hardware names the CPU."""
    if not offloads(workload):
        return None
    field = "workload.offload"
    require_data_parallelism(workload, field=field, what="offload")
    if offloads_parameters(workload) and workload.parallelism != FSDP:
        raise EngineInputError(
            field=field,
            message="offloading the weights shards them: use parallelism 'fsdp' (FSDP, ZeRO-3)",
        )
    if hw.cpu is None:
        raise EngineInputError(
            field="hardware.cpu",
            message="is required with workload.offload: the CPU updates the offloaded state, "
            "at its memory bandwidth",
        )
    return hw.cpu


def host_update_s(update_bytes: float, cpu: CpuSpec) -> float:
    """The optimizer's update streamed through host RAM (`update_bytes` for every rank's
    share together: they share the one host)."""
    return update_bytes / (cpu.mem_gbps * GB * HOST_STREAM_EFFICIENCY)


def pcie_s(moved_bytes: float, hw: Hardware) -> float:
    """Bytes through one GPU's PCIe link (each GPU has its own)."""
    return moved_bytes / (hw.require_gpu().pcie_gbps * GB)


def require_host_ram(state_gib: float, hw: Hardware) -> None:
    """The offloaded state fits the RAM a process can pin (`hardware.pinned_gib`)."""
    if state_gib > hw.pinned_gib:
        raise EngineInputError(
            field="hardware.ram_gb",
            message=f"needs {state_gib:.1f} GB of host RAM for the offloaded training state, "
            f"has {hw.pinned_gib:.1f} GB a process can pin",
        )
