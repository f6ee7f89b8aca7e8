"""DeepSeek V4's attention: every layer a sliding window of 128 tokens over one KV head, CSA
layers one compressed entry per 4 tokens (an indexer picks 512 of them), HCA layers one per
128 tokens, all attended; hyper-connections keep 4 copies of the residual stream. Each figure
is derived here from DeepSeek-V4-Flash's config.json quantities."""

import math

import pytest

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.io.train_request import parse_train_workload
from simulator.engine.model.layers import model_params
from simulator.engine.model.registry import load_model
from simulator.engine.serve.kv_cache import kv_bytes_per_token, max_context
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import PREFILL_RULES, PrefillInputs
from tests.simulator.engine.kv_cache_costs import decode_kv_cache

# deepseek-ai/DeepSeek-V4-Flash config.json (ai-dynamo/aiconfigurator@095f58a5)
H, LAYERS, HEADS, HEAD_DIM, Q_LORA, ROPE = 4096, 43, 64, 512, 1024, 64
O_GROUPS, O_LORA, WINDOW, HC = 8, 1024, 128, 4
INDEX_HEADS, INDEX_DIM, TOP_K = 64, 128, 512
CSA, HCA = 21, 20  # compress_ratios of the 43 layers: 4 ×21, 128 ×20, 0 ×2
EXPERTS, EXPERT_WIDTH, VOCAB = 256, 2048, 129280
F16 = 2
FLASH = load_model("deepseek-v4-flash")


def test_flash_reads_its_compressed_layers_window_and_hyper_connections() -> None:
    att = FLASH.attention
    assert (att.kind, att.num_kv_heads, att.head_dim, att.index_topk) == ("csa", 1, 512, 512)
    assert (FLASH.csa_layers, FLASH.hca_layers) == (CSA, HCA)
    assert (FLASH.sliding_layers, FLASH.sliding_window, FLASH.hc_mult) == (LAYERS, WINDOW, HC)


def _compressor(width: int, ratio: int) -> int:
    coff = 2 if ratio == 4 else 1
    return 2 * H * coff * width + ratio * coff * width + width


def test_flash_has_the_284_33_billion_parameters_llama_bench_prints() -> None:
    attention = (
        H * Q_LORA + Q_LORA + Q_LORA * HEADS * HEAD_DIM  # wq_a, q_norm, wq_b
        + H * HEAD_DIM + HEAD_DIM  # wkv, kv_norm
        + (HEADS * HEAD_DIM // O_GROUPS) * O_GROUPS * O_LORA + O_GROUPS * O_LORA * H  # wo_a, wo_b
        + HEADS  # attention sinks
    )  # fmt: skip
    indexer = Q_LORA * INDEX_HEADS * INDEX_DIM + H * INDEX_HEADS + _compressor(INDEX_DIM, 4)
    compressed = CSA * (_compressor(HEAD_DIM, 4) + indexer) + HCA * _compressor(HEAD_DIM, 128)
    mix = (2 + HC) * HC
    hyper = LAYERS * 2 * (mix * HC * H + mix + 3) + HC * HC * H + HC + 1
    moe = (EXPERTS + 1) * 3 * H * EXPERT_WIDTH + EXPERTS * H  # routed and shared, router
    # the norms' 87 × 4,096 weights are left out, as for every model (llama-bench's count
    # includes them: 284.33 B either way)
    total = LAYERS * (attention + moe) + compressed + hyper + 2 * VOCAB * H
    assert model_params(FLASH) == total
    # llama-bench's "deepseek4 284.33 B" (corpus rows G118-G124)
    assert total / 1e9 == pytest.approx(284.33, abs=0.005)


def test_the_cache_keeps_the_window_and_the_compressed_entries() -> None:
    per_position = kv_bytes_per_token(FLASH)
    assert per_position == LAYERS * HEAD_DIM * F16  # one KV head, keys doubling as values
    context = 65_536
    entries = CSA * (context / 4) * (1 + INDEX_DIM / HEAD_DIM) + HCA * context / 128
    kept = per_position * FLASH.attended_positions(context)
    assert kept == pytest.approx(F16 * HEAD_DIM * (LAYERS * WINDOW + entries))
    # the compressed entries keep growing, so a finite memory holds a finite context
    free = 8e9
    tokens = max_context(free, per_position, model=FLASH)
    window = LAYERS * WINDOW * HEAD_DIM * F16
    per_token = F16 * HEAD_DIM * (CSA / 4 * (1 + INDEX_DIM / HEAD_DIM) + HCA / 128)
    assert tokens == math.floor(min((free - window) / per_token, FLASH.trained_context or 0))


def _decode(context: int, *, sparse: bool) -> tuple[float, float]:
    return decode_kv_cache(FLASH, context, sparse=sparse)


def test_decode_reads_the_window_the_chosen_csa_entries_their_keys_and_every_hca_entry() -> None:
    context = 65_536
    csa_entries = context / 4
    kv_bytes, flops = _decode(context, sparse=True)
    read = LAYERS * WINDOW + CSA * (TOP_K + csa_entries * INDEX_DIM / HEAD_DIM) + HCA * 512
    assert kv_bytes == pytest.approx(F16 * HEAD_DIM * read)
    attended = LAYERS * WINDOW + CSA * TOP_K + HCA * context / 128
    per_entry = 4 * HEADS * HEAD_DIM  # QKᵀ and score·V over one KV head, d wide each
    scores = CSA * csa_entries * 2 * INDEX_HEADS * INDEX_DIM
    assert flops == pytest.approx(per_entry * attended + scores)
    # a dense runtime attends to every CSA entry
    assert _decode(context, sparse=False)[0] > kv_bytes


def test_prefill_attends_to_the_window_and_the_compressed_entries() -> None:
    placement = place(model_parts(FLASH), weight_scheme("Q4_K_M"), "gpu")
    depth, tokens = 8192, 512
    x = PrefillInputs(
        placement=placement, model=FLASH, tokens=tokens, micro_batches=1,
        experts_compute_on_cpu=False, depth=depth, sparse_attention=False,
    )  # fmt: skip
    flops = PREFILL_RULES.breakdown(x)["causal_attention"].attention_flops
    causal = tokens * depth + tokens * (tokens + 1) / 2
    window = LAYERS * WINDOW * tokens  # every query past the first window sees 128
    pairs = window + CSA * causal / 4 + HCA * causal / 128
    indexer = CSA * causal / 4 * 2 * INDEX_HEADS * INDEX_DIM
    assert flops == pytest.approx(4 * HEADS * HEAD_DIM * pairs + indexer)


def test_training_refuses_deepseek_v4_naming_the_model() -> None:
    with pytest.raises(EngineInputError) as caught:
        parse_train_workload({"model": "deepseek-v4-flash", "quant": "NF4"})
    assert caught.value.field == "workload.model"
    assert "compressed attention" in caught.value.message
