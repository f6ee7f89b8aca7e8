"""A build's serving page (/builds/<slug>/serve/, /builds/candidate/serve/) and serving on
the Simulate page (/simulate/serve/), through Django's test client on the real database."""

import json
import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from catalog.models import Build, Part, PartKind
from simulator.engine import GIB, InferenceResult, parse_request, simulate
from simulator.models import SimulationRun

pytestmark = pytest.mark.usefixtures("catalog")

BUILD_B = "seed-b-dual-4090-consumer"  # 2× RTX 4090 beside a desktop CPU
FLASH = {"model": "glm-4.7-flash", "quant": "Q4_K_M", "context": "32768", "placement": "auto"}


def _text(response: Any) -> str:
    return str(response.content.decode())


def _json_script(response: Any, element_id: str) -> Any:
    found = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>',
                      _text(response), re.S)  # fmt: skip
    assert found, element_id
    return json.loads(found.group(1))


def _engine(result: dict[str, Any]) -> InferenceResult:
    engine = simulate(parse_request({"workload": result["workload"],
                                     "hardware": result["hardware"]}))  # fmt: skip
    assert isinstance(engine, InferenceResult)
    return engine


def test_a_seed_builds_serving_page_shows_its_workload_speeds_and_charts(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_B}/serve/", FLASH)

    assert response.status_code == 200
    result = response.context["result"]
    assert result["kind"] == "infer"
    assert result["workload"]["model"] == "glm-4.7-flash"
    assert result["workload"]["context"] == 32768
    page = _text(response)
    assert f'id="decode-speed">{result["decode_tokens_per_s"]:,.1f}<' in page
    assert "For glm-4.7-flash in Q4_K_M at 32,768 tokens of context" in page
    assert "placement asked: auto (each build&#x27;s fastest)" in page
    assert 'href="/catalog/parts/' in page  # each part links to its page
    for canvas in ("placement-chart", "kv-chart", "depth-chart", "batch-chart"):
        assert f'id="{canvas}"' in page


def test_the_placement_chart_holds_what_the_result_stores_in_each_place(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_B}/serve/", FLASH)
    result = response.context["result"]

    chart = _json_script(response, "placement-data")

    # One bar per place the placement uses, then the disk; one dataset per kind of content.
    places = {"gpu": "VRAM", "cpu": "CPU RAM", "unified": "unified memory"}
    assert chart["locations"] == [places[loc] for loc in result["weights_gb"]] + [
        "disk (model file)"
    ]
    kv = next(d for d in chart["datasets"] if d["label"] == "KV cache")
    weights = [d for d in chart["datasets"] if d["label"] != "KV cache"]
    for i, (location, gb) in enumerate(result["weights_gb"].items()):
        assert sum(d["gb"][i] for d in weights) == pytest.approx(gb, abs=0.01), location
    kv_index = list(result["weights_gb"]).index(result["kv_cache_location"])
    assert kv["gb"][kv_index] == pytest.approx(result["kv_cache_gb"], abs=0.001)
    disk = len(result["weights_gb"])
    assert kv["gb"][disk] == 0
    assert sum(d["gb"][disk] for d in weights) == pytest.approx(
        sum(result["weights_gb"].values()), abs=0.01
    )


def test_the_depth_sweep_meets_the_headline_at_the_workloads_context(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_B}/serve/", FLASH)
    result = response.context["result"]

    sweep = _json_script(response, "depth-data")

    at_context = [p for p in sweep["points"] if p["is_context"]]
    assert [p["depth_tokens"] for p in at_context] == [32768]
    assert at_context[0]["decode_tokens_per_s"] == pytest.approx(result["decode_tokens_per_s"])
    assert at_context[0]["kv_cache_gb"] == pytest.approx(result["kv_cache_gb"])
    depths = [p["depth_tokens"] for p in sweep["points"]]
    assert depths == sorted(depths)
    assert depths[0] == 512


def test_an_all_on_gpu_moe_is_labelled_so_with_the_experts_in_ram_figure_beside_it(
    client: Client,
) -> None:
    response = client.get(f"/builds/{BUILD_B}/serve/", FLASH)
    result = response.context["result"]
    assert result["weights_gb"].get("cpu", 0) == 0  # 2× 24 GB hold GLM-4.7-Flash Q4_K_M

    forced = response.context["experts_in_ram"]

    assert response.context["placement_words"] == "all on GPU"
    assert "<h2>Placement: all on GPU</h2>" in _text(response)
    # The figure is the API's placement "hybrid": every routed expert in RAM.
    engine = _engine({**result, "workload": {**result["workload"], "placement": "hybrid",
                                             "offload_from_layer": None}})  # fmt: skip
    assert forced["decode_tokens_per_s"] == pytest.approx(float(engine.decode.tokens_per_s))
    cpu = engine.placement.share("cpu")
    assert cpu is not None
    assert forced["ram_gb"] == pytest.approx(cpu.stored_bytes / GIB)
    assert forced["decode_tokens_per_s"] < result["decode_tokens_per_s"]
    assert 'id="experts-in-ram"' in _text(response)


def test_a_dense_model_is_offered_no_experts_in_ram_figure(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_B}/serve/", {**FLASH, "model": "llama-3.1-8b"})

    assert response.status_code == 200
    assert "experts_in_ram" not in response.context
    assert 'id="experts-in-ram"' not in _text(response)


def test_a_candidate_opens_with_the_parts_and_workload_of_its_address(client: Client) -> None:
    build = Build.objects.get(slug=BUILD_B)
    parts = ",".join(f"{line.part_id}:{line.quantity}" for line in build.lines.all())

    candidate = client.get("/builds/candidate/serve/", {**FLASH, "parts": parts})
    seed = client.get(f"/builds/{BUILD_B}/serve/", FLASH)

    assert candidate.status_code == 200
    same = ("decode_tokens_per_s", "prefill_tokens_per_s", "placement", "max_context")
    assert {k: candidate.context["result"][k] for k in same} == {
        k: seed.context["result"][k] for k in same
    }
    assert f'name="parts" value="{parts}"' in _text(candidate)


def test_a_whole_system_candidate_serves_from_unified_memory(client: Client) -> None:
    system = Part.objects.filter(kind=PartKind.SYSTEM).order_by("pk").first()
    assert system is not None

    response = client.get("/builds/candidate/serve/", {**FLASH, "parts": f"{system.pk}:1"})

    assert response.status_code == 200, response.context["form"].errors
    assert response.context["placement_words"] == "unified memory"
    assert "experts_in_ram" not in response.context  # no CPU RAM apart from the GPU's
    assert "Fine-tuning on this build" not in _text(response)  # training needs a GPU


def test_a_pair_of_systems_serves_a_model_one_cannot_hold_and_says_so(client: Client) -> None:
    framework = Part.objects.get(slug="framework-desktop-ryzen-ai-max-395-128gb")
    glm = {**FLASH, "model": "glm-4.7", "context": "8192"}

    alone = client.get("/builds/candidate/serve/", {**glm, "parts": f"{framework.pk}:1"})
    pair = client.get("/builds/candidate/serve/", {**glm, "parts": f"{framework.pk}:2"})

    assert "result" not in alone.context
    assert "GB usable" in _text(alone)
    assert pair.status_code == 200, pair.context["form"].errors
    result = pair.context["result"]
    assert (result["hardware"]["machines"], result["hardware"]["network_gbit_per_s"]) == (2, 5.0)
    assert result["decode"]["network_s"] > 0
    assert result["decode_tokens_per_s"] == _engine(result).decode.tokens_per_s
    machines = re.search(r'<span id="serving-machines">(.*?)</span>', _text(pair), re.S)
    assert machines is not None
    assert unescape(machines.group(1)) == (
        "2 such machines joined by a 5 Gbit/s network, the model's layers split over them "
        "(llama.cpp RPC)"
    )
    # the decode table's rows add up to the whole step, the network's time a row of its own
    [network] = pair.context["decode_shared_terms"]
    assert network == {"name": "network between machines",
                       "time_ms": pytest.approx(result["decode"]["network_s"] * 1e3)}  # fmt: skip
    rows = [t["time_ms"] for t in pair.context["decode_terms"]] + [network["time_ms"]]
    assert pair.context["decode_step_ms"] == pytest.approx(sum(rows))
    assert pair.context["decode_step_ms"] == pytest.approx(1e3 / result["decode_tokens_per_s"])
    assert "Network between machines" in _text(pair)


def test_a_context_the_engine_refuses_is_shown_on_its_field(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_B}/serve/", {**FLASH, "context": "0"})

    assert response.status_code == 200
    assert "context" in response.context["form"].errors
    assert "result" not in response.context


def test_a_malformed_parts_list_is_an_error_on_the_page(client: Client) -> None:
    response = client.get("/builds/candidate/serve/", {**FLASH, "parts": "x:1"})

    assert response.status_code == 200
    assert "parts: malformed part 'x:1'" in unescape(_text(response))
    assert not SimulationRun.objects.exists()


def test_an_htmx_change_answers_with_the_report_only(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_B}/serve/", FLASH, headers={"HX-Request": "true"})

    assert response.templates[0].name == "frontend/_serving_report.html"
    assert "<html" not in _text(response)


def test_an_unknown_build_is_404(client: Client) -> None:
    assert client.get("/builds/no-such-build/serve/").status_code == 404


def test_the_training_page_links_to_the_same_builds_serving_page(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_B}/")

    assert f'href="/builds/{BUILD_B}/serve/"' in _text(response)


# --- serving on the Simulate page -----------------------------------------------------------
OWN = {**FLASH, "gpu": "RTX 3090", "gpu_count": "1", "cpu": "EPYC 9124", "ram_gb": "128"}


def test_the_simulate_page_serves_on_hardware_named_from_the_device_table(client: Client) -> None:
    response = client.get("/simulate/serve/", OWN)

    assert response.status_code == 200
    result = response.context["result"]
    assert result["hardware"]["gpu"]["name"] == "RTX 3090"
    assert result["hardware"]["cpu"]["name"] == "EPYC 9124"
    assert 'id="depth-chart"' in _text(response)
    assert 'aria-current="page">Serving</a>' in _text(response)


def test_the_simulate_page_offers_a_switch_between_fine_tuning_and_serving(client: Client) -> None:
    training = _text(client.get("/simulate/"))

    assert 'href="/simulate/serve/">Serving</a>' in training
    assert 'aria-current="page">Fine-tuning</a>' in training


def test_a_whole_system_serves_from_unified_memory(client: Client) -> None:
    response = client.get("/simulate/serve/", {**FLASH, "gpu": "", "cpu": "",
                                               "unified": "Mac Studio M4 Max 128GB"})  # fmt: skip

    assert response.status_code == 200, response.context["form"].errors
    assert response.context["placement_words"] == "unified memory"
    assert _json_script(response, "placement-data")["locations"] == [
        "unified memory",
        "disk (model file)",
    ]


def test_a_placement_the_hardware_lacks_is_shown_on_its_field(client: Client) -> None:
    response = client.get("/simulate/serve/", {**OWN, "cpu": "", "placement": "hybrid"})

    assert response.status_code == 200
    assert "result" not in response.context
    errors = response.context["form"].errors
    assert errors, "hybrid without a CPU must be refused"
    assert "cpu" in _text(response).lower()


def test_a_model_too_large_for_the_hardware_says_which_memory_is_short(client: Client) -> None:
    response = client.get("/simulate/serve/", {**OWN, "model": "glm-4.7", "placement": "gpu"})

    assert "result" not in response.context
    assert "GB usable" in _text(response)


def test_the_batch_sweep_starts_at_the_headlines_one_request(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_B}/serve/", FLASH)
    result = response.context["result"]

    sweep = _json_script(response, "batch-data")

    one = sweep["points"][0]
    assert one["requests"] == result["workload"]["batch"] == 1
    assert one["decode_tokens_per_s"] == pytest.approx(result["decode_tokens_per_s"])
    assert [p["requests"] for p in sweep["points"]] == [1, 2, 4, 8, 16, 32, 64]


def test_a_hybrid_offloading_from_past_the_last_layer_reads_all_on_gpu(client: Client) -> None:
    layers = 47  # GLM-4.7-Flash config.json num_hidden_layers: offloading from 47 moves none
    response = client.get(
        f"/builds/{BUILD_B}/serve/",
        {**FLASH, "placement": "hybrid", "offload_from_layer": str(layers)},
    )

    result = response.context["result"]
    assert result["placement"] == "hybrid"
    assert result["workload"]["offload_from_layer"] == layers
    assert result["weights_gb"]["cpu"] == 0
    assert response.context["placement_words"] == "all on GPU"
    # Beside it, every MoE layer's experts in RAM: far slower than the same hybrid keeping none.
    assert response.context["experts_in_ram"]["ram_gb"] > 10
    assert response.context["experts_in_ram"]["decode_tokens_per_s"] < result["decode_tokens_per_s"]


def test_the_decode_step_is_shown_term_by_term_with_the_bandwidth_its_reads_sustain(
    client: Client,
) -> None:
    """An A100's 108 SMs cap llama.cpp's reads below the share an RTX 3090 reaches; the page
    says so in words, and its figures are the engine's own."""
    dense = {**FLASH, "model": "llama-3.1-8b", "cpu": "", "gpu_count": "1"}
    a100 = client.get("/simulate/serve/", {**dense, "gpu": "A100 80GB SXM"})
    rtx = client.get("/simulate/serve/", {**dense, "gpu": "RTX 3090"})

    assert a100.status_code == rtx.status_code == 200
    [hbm], [gddr] = a100.context["decode_terms"], rtx.context["decode_terms"]
    engine = _engine(a100.context["result"])
    [step] = engine.decode.locations
    assert hbm["read_gb"] == pytest.approx((step.weight_bytes + step.kv_bytes) / 1e9)
    assert hbm["memory_ms"] == pytest.approx(step.memory_s * 1e3)
    assert hbm["memory_ms"] == pytest.approx(hbm["read_gb"] / hbm["sustained_gbps"] * 1e3, rel=1e-9)
    assert hbm["capped"]
    assert hbm["compute_units"] == 108
    assert hbm["share"] == pytest.approx(108 * hbm["unit_stream_gbps"] / 2039)
    assert hbm["share"] < gddr["share"]
    page = unescape(_text(a100))
    assert 'id="decode-terms"' in page
    assert "its 108 SMs (compute units) each stream at most" in page
    # the runtime's share is of what the memory sustains in a streaming benchmark: the 3090's
    # measured 831 of its 936 GB/s
    assert gddr["memory_share"] == pytest.approx(831 / 936)
    assert gddr["uncapped_share"] == pytest.approx(gddr["fitted_share"] * 831 / 936)
    assert "a streaming benchmark sustains 88.8 % of its peak bandwidth" in unescape(_text(rtx))


RUN = {**OWN, "context": "1200", "placement": "gpu", "batch": "16", "prompt_tokens": "1000",
       "output_tokens": "200", "requests": "100"}  # fmt: skip


def test_a_serving_run_on_the_simulate_page_is_the_engines_and_says_when_it_saturates(
    client: Client,
) -> None:
    """The page's figures are the engine's serving run for the same body; a rate the slots
    keep up with fills fewer of them, one they cannot is flagged as saturated."""
    calm = client.get("/simulate/serve/", {**RUN, "request_rate_per_s": "0.5"})
    assert calm.status_code == 200, calm.context["form"].errors
    assert "result" in calm.context, calm.context["form"].errors
    run = calm.context["result"]["serving_run"]
    body = {"workload": {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M",
                         "context": 1200, "placement": "gpu", "batch": 16, "prompt_tokens": 1000,
                         "output_tokens": 200, "requests": 100, "request_rate_per_s": 0.5},
            "hardware": {"gpu": "RTX 3090", "gpu_count": 1, "cpu": "EPYC 9124",
                         "ram_gb": 128}}  # fmt: skip
    engine = simulate(parse_request(body))
    assert isinstance(engine, InferenceResult)
    assert engine.serving is not None
    assert run["concurrency"] == engine.serving.concurrency < 16
    assert run["output_tokens_per_s"] == pytest.approx(engine.serving.output_tokens_per_s)
    text = _text(calm)
    assert f'id="serving-run-concurrency">{run["concurrency"]}</strong>' in text
    assert 'id="serving-run-saturated"' not in text

    flood = client.get("/simulate/serve/", {**RUN, "request_rate_per_s": "1000"})
    assert flood.context["result"]["serving_run"]["concurrency"] == 16
    assert 'id="serving-run-saturated"' in _text(flood)

    plain = client.get("/simulate/serve/", OWN)
    assert plain.context["result"]["serving_run"] is None
    assert 'id="serving-run"' not in _text(plain)


def test_a_rate_without_output_tokens_is_refused_on_its_field(client: Client) -> None:
    response = client.get(
        "/simulate/serve/", {**RUN, "output_tokens": "", "request_rate_per_s": "2"}
    )
    assert "result" not in response.context
    errors = response.context["form"].errors
    message = " ".join(errors.get("request_rate_per_s", []))
    assert "needs “Output tokens a request”" in message, errors


def test_a_builds_serving_page_answers_a_serving_run_too(client: Client) -> None:
    """From a ranked build to how many users it serves: the build page takes the same
    run fields, and its figures are the engine's for that build."""
    run_fields = {"context": "4096", "placement": "gpu", "batch": "8",
                  "prompt_tokens": "2000", "output_tokens": "500",
                  "request_rate_per_s": "0.2", "requests": "50"}  # fmt: skip
    response = client.get(f"/builds/{BUILD_B}/serve/", {**FLASH, **run_fields})
    assert "result" in response.context, response.context["form"].errors
    result = response.context["result"]
    run = result["serving_run"]
    assert result["workload"]["output_tokens"] == 500
    assert 1 <= run["concurrency"] <= 8
    assert run["duration_s"] >= 50 / 0.2
    text = _text(response)
    assert 'id="serving-run"' in text
    assert f'id="serving-run-concurrency">{run["concurrency"]}</strong>' in text
    plain = client.get(f"/builds/{BUILD_B}/serve/", FLASH)
    assert plain.context["result"]["serving_run"] is None
