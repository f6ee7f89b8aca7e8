"""DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): a lightning indexer scores every cached
token, and the MLA attention reads only the top-k it picks, where the runtime's kernels are
sparse (vLLM, SGLang, TensorRT-LLM); llama.cpp masks a dense attention instead. Each figure
is derived here from GLM-5's config.json quantities and compared with what the engine
computes."""

import json
from importlib import resources

import pytest

from simulator.engine import EngineInputError, SimulationRequest
from simulator.engine.calibration.efficiency import LLAMA_CPP, VLLM
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.model.config import parse_model_config
from simulator.engine.model.layers import indexer_params, model_params
from simulator.engine.model.registry import load_model
from simulator.engine.serve.inference import simulate_inference
from simulator.engine.serve.kv_cache import kv_bytes_per_token
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import PREFILL_RULES, PrefillInputs
from simulator.engine.serve.workload import InferWorkload
from simulator.engine.version import ENGINE_PACKAGE
from tests.simulator.engine.kv_cache_costs import decode_kv_cache

# zai-org/GLM-5 config.json (ai-dynamo/aiconfigurator@095f58a5, zai-org--GLM-5_config.json).
HIDDEN, LAYERS, HEADS, Q_LORA = 6144, 78, 64, 2048
KV_LORA, ROPE, NOPE, V_DIM = 512, 64, 192, 256
INDEX_HEADS, INDEX_DIM, TOP_K = 32, 128, 2048
F16 = 2  # bytes per cached element


def test_glm_5_reads_its_indexer_and_its_card_parameter_count() -> None:
    glm = load_model("glm-5")
    att = glm.attention

    assert (att.index_heads, att.index_head_dim, att.index_topk) == (
        INDEX_HEADS,
        INDEX_DIM,
        TOP_K,
    )
    # wq_b from the q latent, wk from the hidden state with its LayerNorm, weights_proj
    per_layer = Q_LORA * INDEX_HEADS * INDEX_DIM + HIDDEN * INDEX_DIM + 2 * INDEX_DIM
    assert indexer_params(att, HIDDEN) == per_layer + HIDDEN * INDEX_HEADS
    # the GLM-5 technical report's 744 B total (arXiv:2602.15763, Table 1)
    assert model_params(glm) / 1e9 == pytest.approx(744, rel=1e-3)


def test_the_cache_keeps_the_latent_the_rope_key_and_the_indexers_key() -> None:
    glm = load_model("glm-5")
    assert kv_bytes_per_token(glm) == LAYERS * (KV_LORA + ROPE + INDEX_DIM) * F16
    # DeepSeek-V3 (no indexer) keeps the latent and rope key only
    v3 = load_model("deepseek-v3")
    assert kv_bytes_per_token(v3) == 61 * (KV_LORA + ROPE) * F16


def _kv_cost(context: int, *, sparse: bool) -> tuple[float, float]:
    return decode_kv_cache(load_model("glm-5"), context, sparse=sparse)


def test_sparse_decode_reads_the_latent_of_the_top_k_and_the_indexers_keys_of_all() -> None:
    context = 32_768
    kv_bytes, flops = _kv_cost(context, sparse=True)

    latent = KV_LORA + ROPE
    assert kv_bytes == pytest.approx(LAYERS * F16 * (latent * TOP_K + INDEX_DIM * context))
    attention = 2 * HEADS * (2 * KV_LORA + ROPE)  # absorbed MLA, per position
    indexer = 2 * INDEX_HEADS * INDEX_DIM
    assert flops == pytest.approx(LAYERS * (attention * TOP_K + indexer * context))


def test_a_dense_runtime_reads_every_cached_token_whole() -> None:
    context = 32_768
    kv_bytes, flops = _kv_cost(context, sparse=False)

    assert kv_bytes == pytest.approx(LAYERS * F16 * (KV_LORA + ROPE + INDEX_DIM) * context)
    attention = 2 * HEADS * (2 * KV_LORA + ROPE)
    indexer = 2 * INDEX_HEADS * INDEX_DIM
    assert flops == pytest.approx(LAYERS * (attention + indexer) * context)


def test_within_the_top_k_sparse_and_dense_attention_cost_the_same() -> None:
    assert _kv_cost(TOP_K, sparse=True) == pytest.approx(_kv_cost(TOP_K, sparse=False))
    assert _kv_cost(4 * TOP_K, sparse=True)[0] < _kv_cost(4 * TOP_K, sparse=False)[0]


def test_sparse_prefill_attends_to_at_most_the_top_k_keys_per_query() -> None:
    glm = load_model("glm-5")
    placement = place(model_parts(glm), weight_scheme("Q4_K_M"), "gpu")
    depth, tokens = 30_000, 2048

    def attention_flops(sparse: bool) -> float:
        x = PrefillInputs(
            placement=placement, model=glm, tokens=tokens, micro_batches=1,
            experts_compute_on_cpu=False, depth=depth, sparse_attention=sparse,
        )  # fmt: skip
        return PREFILL_RULES.breakdown(x)["causal_attention"].attention_flops

    per_pair = 2 * HEADS * ((NOPE + ROPE) + V_DIM)  # QKᵀ and score·V per query–key pair
    indexer = 2 * INDEX_HEADS * INDEX_DIM
    causal = tokens * depth + tokens * (tokens + 1) / 2
    assert attention_flops(True) == pytest.approx(
        LAYERS * (per_pair * tokens * TOP_K + indexer * causal)
    )
    assert attention_flops(False) == pytest.approx(LAYERS * (per_pair + indexer) * causal)


H200 = GpuSpec(name="t", vram_gib=141.0, bf16_tflops=989.0, pcie_gbps=50.0, mem_gbps=4800.0)


def _decode_tokens_per_s(runtime: str, context: int) -> float:
    workload = InferWorkload(
        model=load_model("glm-5"), quant=weight_scheme("FP8"), placement="gpu",
        tensor_parallel=8, context=context, prompt_tokens=512, runtime=runtime,
    )  # fmt: skip
    request = SimulationRequest(workload=workload, hardware=Hardware(gpu=H200, gpu_count=8))
    return simulate_inference(request).decode.tokens_per_s


def test_at_long_context_vllm_decodes_faster_than_llama_cpp_for_its_sparse_kernels() -> None:
    # the same machine and constants family; only the attention's reads differ past the top-k
    short = _decode_tokens_per_s(VLLM, 1024) / _decode_tokens_per_s(LLAMA_CPP, 1024)
    long = _decode_tokens_per_s(VLLM, 65_536) / _decode_tokens_per_s(LLAMA_CPP, 65_536)
    assert long > short


def test_an_indexer_over_gqa_attention_is_refused_naming_index_topk() -> None:
    plain = {"hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4,
             "intermediate_size": 1024, "vocab_size": 1000}  # fmt: skip
    with pytest.raises(EngineInputError) as error:
        parse_model_config(plain | {"index_topk": 2048}, slug="gqa-dsa")
    assert error.value.field == "model.config.index_topk"
    assert "MLA" in error.value.message


def test_glm_5_2s_shared_layers_have_no_indexer_and_cache_no_indexer_key() -> None:
    # zai-org/GLM-5.2 config.json: `indexer_types` "full" at layers 0-2 and every 4th from
    # 6 to 74 (21), "shared" elsewhere (57); every other shape key is GLM-5's
    glm_5, glm_5_2 = load_model("glm-5"), load_model("glm-5.2")
    shared = 57
    assert (glm_5_2.shared_indexer_layers, glm_5_2.indexer_layers) == (shared, LAYERS - shared)

    per_layer = indexer_params(glm_5.attention, HIDDEN)
    assert model_params(glm_5) - model_params(glm_5_2) == shared * per_layer
    latent = KV_LORA + ROPE
    assert kv_bytes_per_token(glm_5_2) == (LAYERS * latent + (LAYERS - shared) * INDEX_DIM) * F16


def test_glm_5_2s_sparse_decode_scores_and_reads_keys_in_its_indexer_layers_only() -> None:
    context = 32_768
    kv_bytes, cache_flops = decode_kv_cache(load_model("glm-5.2"), context, sparse=True)

    indexer_layers = LAYERS - 57
    latent = KV_LORA + ROPE
    expected_bytes = F16 * (LAYERS * latent * TOP_K + indexer_layers * INDEX_DIM * context)
    assert kv_bytes == pytest.approx(expected_bytes)
    attention = 2 * HEADS * (2 * KV_LORA + ROPE)
    indexer = 2 * INDEX_HEADS * INDEX_DIM
    assert cache_flops == pytest.approx(
        LAYERS * attention * TOP_K + indexer_layers * indexer * context
    )


def test_an_indexer_shared_across_layers_needs_its_list_of_layers() -> None:
    shipped = resources.files(ENGINE_PACKAGE).joinpath("data/models/glm-5.2.json")
    config = json.loads(shipped.read_text("utf-8"))
    del config["indexer_types"]
    with pytest.raises(EngineInputError) as error:
        parse_model_config(config, slug="glm-5.2-without-types")
    assert error.value.field == "model.config.indexer_types"
