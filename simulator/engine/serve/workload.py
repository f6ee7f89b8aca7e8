"""What to simulate when serving: one model answering requests on one machine."""

from __future__ import annotations

from dataclasses import dataclass, replace

from simulator.engine.calibration.efficiency import (
    RUNTIMES_WITHOUT_WINDOWED_CACHE,
    SPARSE_ATTENTION_RUNTIMES,
)
from simulator.engine.formats.weights import WeightScheme
from simulator.engine.model.config import ModelShape
from simulator.engine.serve.kv_cache import DEFAULT_KV_CACHE_TYPE

INFER = "infer"
DEFAULT_CONTEXT = 4096
DEFAULT_PROMPT_TOKENS = 512
DEFAULT_UBATCH = 512  # llama.cpp's default -ub
# A sliding window no context reaches: the layer caches and attends every position.
UNBOUNDED_WINDOW = 2**62


def model_as_run(model: ModelShape, runtime: str | None) -> ModelShape:
    """`model` as `runtime` runs it: on a runtime without window-sized caches
    (RUNTIMES_WITHOUT_WINDOWED_CACHE) its sliding-window layers keep their own shape but
    cache and attend over the whole context, as full layers do. DeepSeek V4's window beside
    its compressed entries is another attention, kept as it is."""
    if runtime not in RUNTIMES_WITHOUT_WINDOWED_CACHE or not model.sliding_layers:
        return model
    if model.csa_layers or model.hca_layers:
        return model
    return replace(model, sliding_window=UNBOUNDED_WINDOW)


@dataclass(frozen=True, slots=True, kw_only=True)
class InferWorkload:
    model: ModelShape
    quant: WeightScheme
    placement: str
    context: int = DEFAULT_CONTEXT
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS
    # Tokens already in the KV cache when the prompt is processed (llama-bench's -d, a chat's
    # earlier turns): the prompt's queries attend to them too.
    prefill_depth_tokens: int = 0
    # GPUs splitting every layer (vLLM/SGLang --tensor-parallel-size, llama.cpp -sm row); the
    # rest of the machine's GPUs split layers between groups of this many. 1: layer split only.
    tensor_parallel: int = 1
    batch: int = 1
    kv_cache_type: str = DEFAULT_KV_CACHE_TYPE
    ubatch: int = DEFAULT_UBATCH
    offload_from_layer: int | None = None  # hybrid: first layer whose experts go to CPU RAM
    # Hybrid: the offloaded experts are stored in a row-interleaved CPU layout (ik_llama.cpp's
    # run-time repack `-rtr`, or an `_R4`/`_R8` type) that has no GPU kernels, so a prompt's
    # expert GEMMs run on the CPU instead of being copied to the GPU.
    repacked_experts: bool = False
    # The KV cache in host RAM, its attention computed by the CPU, the weights on the GPU
    # (llama.cpp's --no-kv-offload / -nkvo): placement.py, docs/model.md "KV cache in host RAM".
    kv_cache_on_cpu: bool = False
    # llama.cpp's -ngl below the model's layers: the last `gpu_layers` layers on the GPU(s),
    # the first ones whole (weights, KV cache, compute) in host RAM (placement.split_layers).
    # None: every layer where the placement puts it.
    gpu_layers: int | None = None
    # The runtime family whose efficiency constants apply (efficiency.RUNTIMES); None → the
    # usual one for each device class (efficiency.DEFAULT_RUNTIME).
    runtime: str | None = None
    # Whether the attention reads only a sparse-attention indexer's top-k tokens (DeepSeek-V3.2,
    # GLM-5); None → the runtime's kernels decide (efficiency.SPARSE_ATTENTION_RUNTIMES). False
    # is a sparse runtime's dense fallback (SGLang on GPUs without FlashMLA's sparse kernels).
    sparse_attention: bool | None = None
    quant_json: str | None = None  # the request's `quant` as given (a name or a mix), echoed
    # A serving run (serve/serving_run.py): requests of `prompt_tokens` in and `output_tokens`
    # out, at most `batch` in flight, sent at `request_rate_per_s` (None: kept in flight by
    # their clients), `requests` of them (None: an open stream). None: no run.
    output_tokens: int | None = None
    request_rate_per_s: float | None = None
    requests: int | None = None

    @property
    def kind(self) -> str:
        return INFER

    @property
    def splits_layers(self) -> bool:
        """Whether some layers sit whole in host RAM (placement.split_layers)."""
        return self.gpu_layers is not None and self.gpu_layers < self.model.num_layers

    @property
    def reads_top_k(self) -> bool:
        """Whether a sparse-attention model's attention reads only its indexer's top-k."""
        if self.sparse_attention is not None:
            return self.sparse_attention
        return self.runtime in SPARSE_ATTENTION_RUNTIMES


def without_serving_run(workload: InferWorkload) -> InferWorkload:
    """The workload's single-request figures alone: the sweeps and the serving run's own
    steps simulate decode and prefill, not another run."""
    return replace(workload, output_tokens=None, request_rate_per_s=None, requests=None)
