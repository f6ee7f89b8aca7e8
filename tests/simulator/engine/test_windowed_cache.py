"""A runtime without window-sized caches (ik_llama.cpp) runs a model's sliding-window layers
over the whole context: they cache and attend every position (serve/workload.model_as_run;
docs/model.md, "A runtime without window-sized caches"). Each figure is derived from Gemma 3
27B's config.json quantities."""

import pytest

from simulator.engine.calibration.efficiency import IK_LLAMA_CPP, LLAMA_CPP
from simulator.engine.io.serve_request import parse_infer_workload
from simulator.engine.model.registry import load_model
from simulator.engine.serve.inference import kv_cache_size
from simulator.engine.serve.kv_cache import kv_bytes_per_token, max_context
from simulator.engine.serve.workload import UNBOUNDED_WINDOW, InferWorkload, model_as_run

# google/gemma-3-27b-it text config: 62 layers, every 6th full attention, a 1,024-token window
LAYERS, FULL, WINDOW = 62, 10, 1024
CONTEXT = 32768


def _workload(runtime: str, context: int = CONTEXT) -> InferWorkload:
    return parse_infer_workload(
        {"model": "gemma-3-27b", "quant": "Q4_0", "context": context, "runtime": runtime}
    )


def test_llama_cpp_keeps_a_sliding_layers_cache_at_its_window() -> None:
    model = _workload(LLAMA_CPP).model
    assert (model.num_layers, model.sliding_layers, model.sliding_window) == (
        LAYERS,
        LAYERS - FULL,
        WINDOW,
    )
    expected = (FULL * CONTEXT + (LAYERS - FULL) * WINDOW) / LAYERS
    assert model.attended_positions(CONTEXT) == pytest.approx(expected)


def test_ik_llama_cpp_caches_and_attends_the_whole_context_in_every_layer() -> None:
    model = _workload(IK_LLAMA_CPP).model
    assert model.sliding_window == UNBOUNDED_WINDOW
    assert model.sliding_layers == LAYERS - FULL  # the layers keep their shape
    assert model.attended_positions(CONTEXT) == CONTEXT
    # the prompt's query-key pairs at depth D are a full layer's P·D + P(P+1)/2 in every layer
    prompt, depth = 512, CONTEXT
    assert model.attended_pairs(depth, prompt) == pytest.approx(
        prompt * depth + prompt * (prompt + 1) / 2
    )


def test_the_cache_ik_llama_cpp_holds_is_the_full_context_times_the_bytes_per_token() -> None:
    ik, llama = _workload(IK_LLAMA_CPP), _workload(LLAMA_CPP)
    per_token = kv_bytes_per_token(load_model("gemma-3-27b"))
    assert kv_cache_size(ik) == pytest.approx(per_token * CONTEXT)
    windowed = (FULL * CONTEXT + (LAYERS - FULL) * WINDOW) / LAYERS
    assert kv_cache_size(llama) == pytest.approx(per_token * windowed)
    # so the same free memory holds a shorter context on ik_llama.cpp
    free = 8 * 2**30
    assert max_context(free, per_token, model=ik.model) == int(free // per_token)
    assert max_context(free, per_token, model=llama.model) > 4 * max_context(
        free, per_token, model=ik.model
    )


def test_models_without_a_window_and_deepseek_v4_run_as_they_are() -> None:
    llama = load_model("llama-3.1-8b")
    assert model_as_run(llama, IK_LLAMA_CPP) is llama
    v4 = load_model("deepseek-v4-flash")  # its window sits beside compressed entries
    assert model_as_run(v4, IK_LLAMA_CPP) is v4
    gemma = load_model("gemma-3-27b")
    assert model_as_run(gemma, LLAMA_CPP) is gemma
    assert model_as_run(gemma, None) is gemma
