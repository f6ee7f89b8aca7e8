"""What the decode rule `kv_cache` counts for one sequence of a model on one GPU: the cache
bytes a step reads and the attention FLOPs over them (tests derive both by hand)."""

from simulator.engine.formats.weights import weight_scheme
from simulator.engine.model.config import ModelShape
from simulator.engine.serve.decode import DECODE_RULES, DecodeInputs, ShareStep
from simulator.engine.serve.kv_cache import kv_bytes_per_token
from simulator.engine.serve.placement import model_parts, place


def decode_kv_cache(model: ModelShape, context: int, *, sparse: bool) -> tuple[float, float]:
    """(cache bytes, cache FLOPs) of one decode step at `context` cached tokens, batch 1;
    `sparse`: the runtime reads only a sparse-attention indexer's choice."""
    placement = place(model_parts(model), weight_scheme("Q4_K_M"), "gpu")
    inputs = DecodeInputs(
        placement=placement, model=model, kv_bytes_per_token=kv_bytes_per_token(model),
        context=context, batch=1, sparse_attention=sparse,
    )  # fmt: skip
    cost = DECODE_RULES.breakdown(ShareStep(share=placement.shares[0], inputs=inputs))
    return cost["kv_cache"].kv_bytes, cost["kv_cache"].cache_flops
