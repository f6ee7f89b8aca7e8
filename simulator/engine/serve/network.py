"""Machines splitting a model's layers over a network: llama.cpp's RPC backend.

Each of M identical machines holds a contiguous block of layers (the layer split, as over the
GPUs of one machine), so a token visits them one after another: the step's reads, arithmetic
and per-layer costs are one machine's pace over all the layers, as for a layer split over
GPUs, and the memory adds up. What the network adds is at each of the M − 1 boundaries:

- the hidden state of every token crossing it, in f32 (decode.ACTIVATION_BYTES: ggml copies
  the split's output tensor between backends as it is; the RPC backend sends it with
  `set_tensor`);
- a fixed cost per crossing of a micro-batch: the RPC calls that copy the tensor and run the
  next machine's part of the graph wait for their answers (`ggml-rpc.cpp`: every command is a
  request and its response on one TCP connection), and a device on the RPC backend "does not
  support async, host buffers or events" (its load-time log), so nothing overlaps and no
  micro-batches pipeline across machines. That cost is `network_hop_s`, one global constant
  fitted on the corpus rows of several machines (calibration/fit.py).

docs/model.md, "Several machines over a network".
"""

from __future__ import annotations

from simulator.engine.calibration.efficiency import RPC_RUNTIMES
from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import Hardware
from simulator.engine.serve.decode import ACTIVATION_BYTES
from simulator.engine.serve.hardware import GPU, UNIFIED
from simulator.engine.units import GIGA

BITS_PER_BYTE = 8


def network_s(
    hardware: Hardware, *, tokens: int, micro_batches: int, hidden_size: int, hop_s: float
) -> float:
    """Seconds `tokens` (in `micro_batches`) spend crossing the machines' boundaries: 0 on
    one machine."""
    boundaries = hardware.machines - 1
    if boundaries <= 0:
        return 0.0
    assert hardware.network_gbit_per_s is not None  # io/hardware.py requires it
    bits = tokens * hidden_size * ACTIVATION_BYTES * BITS_PER_BYTE
    return boundaries * (micro_batches * hop_s + bits / (hardware.network_gbit_per_s * GIGA))


def check_machines(
    hardware: Hardware,
    placement: str,
    *,
    runtime: str,
    tensor_parallel: int = 1,
) -> None:
    """Several machines serve a model as llama.cpp's RPC backend splits it: its layers over
    the machines' GPUs or unified memory, one runtime of the llama.cpp family."""
    if hardware.machines <= 1:
        return
    field = "hardware.machines"
    if tensor_parallel > 1:
        message = "the RPC backend splits layers over machines; no tensor parallelism across them"
        raise EngineInputError(field="workload.tensor_parallel", message=message)
    if placement not in (GPU, UNIFIED):
        message = (
            f"{hardware.machines} machines split the layers over their GPUs or unified memory "
            f"(llama.cpp RPC): placement 'gpu' or 'unified', not {placement!r}"
        )
        raise EngineInputError(field=field, message=message)
    if runtime not in RPC_RUNTIMES:
        message = (
            f"the engine models several machines as llama.cpp's RPC backend splits layers over "
            f"them; {runtime} is not of the llama.cpp family"
        )
        raise EngineInputError(field=field, message=message)
