"""How a corpus row's model name becomes a shipped model, or the reason it cannot."""

from typing import Any

import pytest

from simulator.engine.calibration.not_modeled import NotModeled
from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import model_slug
from tests.simulator.engine.corpus_rows import corpus_row


def _row(**changes: Any) -> Any:
    return corpus_row(**changes)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("mistralai/Mistral-7B-v0.1", "mistral-7b"),
        ("TheBloke/Mistral-7B-v0.1-GPTQ", "mistral-7b"),
        ("NousResearch/Llama-2-70b-hf", "llama-2-70b"),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"),
        ("Llama3 70B", "llama-3.1-70b"),
        ("llama 8B Q4_K_M", "llama-3.1-8b"),  # llama-bench's label for Llama 3.x 8B
        ("GLM-4.7", "glm-4.7"),  # a shipped model by its own slug
        ("zai-org/GLM-4.7-FP8", "glm-4.7"),
        ("GLM 4.7 Flash", "glm-4.7-flash"),  # the longest name found wins
        ("Qwen 3 30B A3B", "qwen3-30b-a3b"),  # a family and its generation spaced apart
        ("Qwen 2 7B", "qwen2-7b"),
        ("LLaMA 2 7B", "llama-2-7b"),
        ("LLaMA 7B", "llama-7b"),  # LLaMA-1 7B is not Llama 2 7B
        ("01-ai/Yi-34B-Chat", "yi-34b"),
        ("c4ai-command-r-plus", "command-r-plus-104b"),
        ("Code Llama 34B", "codellama-34b"),
        ("gemma-2b-it", "gemma-2b"),  # first-generation Gemma, not Gemma 2
        ("Gemma 2 2B", "gemma-2-2b"),
        ("DeepSeek-V2.5", "deepseek-v2"),
        ("DeepSeek-V2-Lite-Chat", "deepseek-v2-lite"),
        ("OLMo-2-1124-7B-Instruct", "olmo-2-7b"),
        ("MiniMax-M2.5", "minimax-m2.5"),  # one model of the name
        # fine-tunes named apart from their base keep its shapes
        ("mistralai/Devstral-Small-2507", "mistral-small-3.1-24b"),
        ("Magistral-Small-2506", "mistral-small-3.1-24b"),
        ("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "llama-3.1-70b"),
        ("moonshotai/Kimi-Dev-72B", "qwen2.5-72b"),
        ("HuggingFaceH4/zephyr-7b-beta", "mistral-7b"),
    ],
)
def test_a_hugging_face_repository_name_resolves_to_its_shipped_model(name: str, slug: str) -> None:
    assert model_slug(_row(model=name)) == slug


@pytest.mark.parametrize(("params_b", "slug"), [(70.6, "llama-3.1-70b"), (68.98, "llama-2-70b")])
def test_llama_benchs_bare_size_label_takes_the_model_with_the_stated_parameter_count(
    params_b: float, slug: str
) -> None:
    # Llama 3.x 70B has 70.55 B parameters (128,256-token vocabulary), Llama 2 70B 68.98 B
    assert model_slug(_row(model="Llama 70B (llama 70B)", params_total_b=params_b)) == slug


def test_a_bare_size_label_without_a_parameter_count_is_not_modeled() -> None:
    with pytest.raises(NotModeled, match="no parameter count"):
        model_slug(_row(model="Llama 70B (llama 70B)"))


def test_a_pruned_checkpoint_is_told_by_its_parameter_count_not_its_name() -> None:
    """An expert-pruned "REAP" checkpoint keeps its parent's name, not its shape."""
    with pytest.raises(NotModeled, match="no parameter count"):
        model_slug(_row(model="MiniMax-M2.5-REAP-139B-A10B"))
    with pytest.raises(NotModeled, match="fits 0"):
        model_slug(_row(model="MiniMax-M2.5-REAP-139B-A10B", params_total_b=139.0))


@pytest.mark.parametrize(
    ("name", "config_key"),
    [
        ("NVIDIA-Nemotron-3-Nano-30B-A3B", "hybrid_override_pattern"),
        ("IBM Granite 4.0-H Small (hybrid Mamba MoE)", "mamba_d_state"),
    ],
)
def test_a_hybrid_architecture_is_not_modeled_with_the_config_keys_that_say_why(
    name: str, config_key: str
) -> None:
    prediction = predict_row(_row(model=name))
    assert not prediction.modeled
    assert config_key in prediction.reason


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("TinyLlama 1.1B", "tinyllama-1.1b"),
        ("Llama 4 Scout 17B-16E Instruct", "llama-4-scout"),
        ("DeepSeek-R1-Distill-Llama-8B", "llama-3.1-8b"),
        ("DeepSeek-R1-Distill-Qwen-14B Q4_K_M", "qwen2.5-14b"),
        ("Qwen3.5-9B", "qwen3.5-9b"),
        ("Qwen 3.5 4B", "qwen3.5-4b"),
        ("gemma-3-12b-it", "gemma-3-12b"),
        ("Gemma 3 4B it QAT (mlx-community/gemma-3-4b-it-qat-4bit)", "gemma-3-4b"),
        ("gemma-2-9b-it", "gemma-2-9b"),
        ("Phi-4 14B", "phi-4"),
        ("Phi-4-mini-instruct", "phi-4-mini"),
        ("Qwen2.5-Coder-32B-Instruct", "qwen2.5-32b"),
        ("qwen-14b-chat", "qwen-14b"),
        ("Qwen3-Coder-480B-A35B-Instruct", "qwen3-coder-480b-a35b"),
        ("Mistral-Nemo-Instruct-2407", "mistral-nemo-12b"),
        ("gemma-2-2b-it", "gemma-2-2b"),
        ("QwQ-32B", "qwen2.5-32b"),
        ("Llama-4-Scout-17B-16E-Instruct", "llama-4-scout"),
        ("Llama 4 Maverick (nvidia/Llama-4-Maverick-17B-128E-Instruct-FP8)", "llama-4-maverick"),
        ("TinyLlama 1.1B (llama 1B)", "tinyllama-1.1b"),
        ("gemma-3-27b-it-qat", "gemma-3-27b"),
        ("Gemma 3 27B it", "gemma-3-27b"),
        ("Qwen3 0.6B", "qwen3-0.6b"),
        ("Qwen3-0.6B (mlx-community/Qwen3-0.6B-8bit)", "qwen3-0.6b"),
        ("Qwen 3 32B", "qwen3-32b"),
        ("Mistral Small 3.1 24B Instruct 2503", "mistral-small-3.1-24b"),
        ("Kimi K2.6 / K2.7-Code (1T, 32B active)", "kimi-k2"),
        ("Qwen3.6-35B-A3B", "qwen3.5-35b-a3b"),
        ("Qwen3.6-27B dense (mlx-community/Qwen3.6-27B-4bit)", "qwen3.5-27b"),
        ("Ornith-1.0-35B (qwen35moe 35B.A3B)", "qwen3.5-35b-a3b"),
        ("Qwen3.5-122B-A10B", "qwen3.5-122b-a10b"),
        ("Qwen3.5-397B-A17B", "qwen3.5-397b-a17b"),
        ("Qwen3-Next-80B-A3B-Instruct", "qwen3-next-80b-a3b"),
        ("Qwen3-Coder-Next 80B-A3B", "qwen3-next-80b-a3b"),
        ("DeepSeek-R1-Distill-Qwen-7B", "deepseek-r1-distill-qwen-7b"),
        ("DeepSeek-R1-Distill-Qwen-1.5B Q8_0", "deepseek-r1-distill-qwen-1.5b"),
        ("Devstral 2 123B Instruct 2512", "devstral-2-123b"),
        ("SmolLM3-3B", "smollm3-3b"),
        ("DeepSeek-V3.2", "deepseek-v3.2"),
        ("DeepSeek-V3.2-Speciale", "deepseek-v3.2"),
        ("GLM-5", "glm-5"),
        ("GLM-5.1", "glm-5"),
        ("zai-org/GLM-5.1-FP8", "glm-5"),
        ("GLM-5.2 (743B MoE, 39B active)", "glm-5.2"),
        ("DeepSeek V4 Flash (284B, ~13B active)", "deepseek-v4-flash"),
        ("deepseek-ai/DeepSeek-V4-Pro", "deepseek-v4-pro"),
    ],
)
def test_the_corpus_names_of_added_models_resolve(name: str, slug: str) -> None:
    assert model_slug(_row(model=name)) == slug


def test_a_pruned_variant_named_after_a_shipped_model_is_not_read_as_it() -> None:
    # MiniMax M2.5 has 228.69 B parameters; REAP pruned its experts to 139.15 B
    assert model_slug(_row(model="MiniMax M2.5", params_total_b=228.69)) == "minimax-m2.5"
    with pytest.raises(NotModeled, match=r"139\.15 B"):
        model_slug(_row(model="MiniMax-M2.5-REAP-139B-A10B", params_total_b=139.15))


def test_a_distilled_model_is_not_read_as_its_teacher() -> None:
    # a community distill of DeepSeek V3.1 into Qwen3-30B-A3B: neither name's shape is its own
    with pytest.raises(NotModeled, match="distilled"):
        model_slug(_row(model="Qwen3-30B-A3B-Thinking-2507-Deepseek-v3.1-Distill"))
    assert model_slug(_row(model="DeepSeek-R1-Distill-Qwen-32B")) == "qwen2.5-32b"


@pytest.mark.parametrize(
    ("engine", "caveats"),
    [
        ("Rapid-MLX with DFlash speculative decoding", "acceptance 88.87%"),
        ("vLLM (vllm bench serve) TP4, MTP=2", "MTP speculative decoding with 2 tokens"),
        ("SGLang 0.5.16 (low-latency config)", "the low-latency configs run MTP speculative"),
        ("llama.cpp CUDA", "-md draft model Llama-3.2-1B"),
    ],
)
def test_a_speculative_decode_is_not_modeled(engine: str, caveats: str) -> None:
    prediction = predict_row(_row(engine=engine, caveats=caveats))
    assert not prediction.modeled
    assert "speculative decoding" in prediction.reason


@pytest.mark.parametrize(
    ("engine", "caveats"),
    [
        ("Rapid-MLX baseline (no speculative decoding)", ""),
        ("vLLM 0.1.dev19754 TP8", "no EP, default MoE backend, no MTP stated for this table"),
    ],
)
def test_a_run_that_says_it_had_no_speculative_decoding_is_modeled(
    engine: str, caveats: str
) -> None:
    assert "speculative" not in (predict_row(_row(engine=engine, caveats=caveats)).reason or "")


def test_two_gpu_models_named_in_one_field_are_mixed_gpus_not_modeled() -> None:
    hardware = {"gpu": "NVIDIA GeForce RTX 5090 + NVIDIA GeForce RTX 4090", "gpu_count": 2}
    prediction = predict_row(_row(hardware=hardware))
    assert not prediction.modeled
    assert "mixed GPU models" in prediction.reason


@pytest.mark.parametrize(
    ("engine", "where", "modeled"),
    [
        ("llama.cpp CUDA (PR #1827)", "comment by TheBloke on 2023-06-12", False),
        (
            "llama.cpp batched-bench (CUDA, PR #3545 era)",
            "PR description by ggerganov (2023-10)",
            False,
        ),
        ("llama.cpp CUDA", "comment by JohannesGaessler on 2024-07-02", True),
        # the rule is CUDA's: Metal's 2023 builds already ran the kernels its constants describe
        ("llama.cpp Metal", "comment by ggerganov on 2023-11-20", True),
        ("llama.cpp CUDA", "Table 3 (no date given)", True),
    ],
)
def test_a_llama_cpp_cuda_build_dated_before_2024_is_not_modeled(
    engine: str, where: str, modeled: bool
) -> None:
    source = {"url": "https://github.com/ggml-org/llama.cpp/pull/1827", "where": where}
    prediction = predict_row(_row(engine=engine, source=source))
    assert ("llama.cpp CUDA build of 2023" in (prediction.reason or "")) is not modeled
    if not modeled:
        assert not prediction.modeled


def test_the_measured_year_is_the_earliest_year_month_the_pointer_names() -> None:
    where = "comment by a on 2023-06-12, edited 2024-01-03"
    assert _row(source={"url": "https://example.org/x", "where": where}).measured_year == 2023
    assert _row(source={"url": "https://example.org/x", "where": "v2.3-10"}).measured_year is None


@pytest.mark.parametrize(
    ("gpu", "stated"),
    [("Intel Arc Pro B70 (BMG G31; memory size not stated in repo)", True),
     ("not stated in the table", False),
     ("24 GB VRAM GPU (model not stated)", False)],
)  # fmt: skip
def test_a_gpu_is_unstated_only_when_the_card_itself_is(gpu: str, stated: bool) -> None:
    reason = predict_row(_row(hardware={"gpu": gpu, "gpu_count": 1})).reason or ""
    assert ("GPU is not stated" in reason) is not stated


def test_a_vulkan_row_on_an_intel_gpu_is_not_modeled_and_on_a_radeon_it_is() -> None:
    engine = "llama.cpp Vulkan (Mesa)"
    intel = predict_row(_row(engine=engine, hardware={"gpu": "Intel Arc Pro B70", "gpu_count": 1}))
    assert not intel.modeled
    assert "no constants for llama.cpp-vulkan on Intel GPUs" in intel.reason
    radeon = predict_row(
        _row(engine=engine, hardware={"gpu": "Radeon RX 7900 XTX", "gpu_count": 1})
    )
    assert radeon.modeled


def test_llama_benchs_deepseek4_label_takes_the_v4_with_the_stated_parameter_count() -> None:
    # llama.cpp names DeepSeek V4's architecture deepseek4; Flash has 284.33 B parameters
    row = _row(model="DeepSeek V4 (deepseek4, 284.33 B params per llama-bench)",
               params_total_b=284.33)  # fmt: skip
    assert model_slug(row) == "deepseek-v4-flash"
