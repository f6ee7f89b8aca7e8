"""The pages through Django's test client (no browser, no worker)."""

import html
import json
import re
from typing import Any
from unittest import mock

import pytest
from django.test import Client

from simulator.engine import DEFAULT_MODE
from simulator.models import RunStatus, SimulationRun
from simulator.ranking import DEFAULT_SORT
from simulator.services.ranking_views import ranking_view
from tests.frontend.conftest import GLM, ranking_compute

BUILD_A = "seed-a-budget-single-gpu"
BUILD_C = "seed-c-single-rtx-5090"
HTMX = {"HX-Request": "true"}
CUSTOM = {
    "gpu_name": "what-if", "vram_gb": "48", "bf16_tflops": "200", "pcie_gbps": "44",
    "gpu_count": "1", "nvme_gbps": "12", "ram_gb": "64", "utilization": "0.7",
    "lora_rank": "64", "model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": "1024",
    "tokens": "50000000", "mode": "reference",
}  # fmt: skip
pytestmark = pytest.mark.usefixtures("catalog")


def _text(response: Any) -> str:
    return str(response.content.decode())


def test_the_home_page_shows_the_computed_ranking_as_a_table_and_a_chart(client: Client) -> None:
    ranking_compute(GLM)

    response = client.get("/")

    assert response.status_code == 200
    assert 'id="scatter-data"' in _text(response)
    assert "1x RTX 4090" in _text(response)


def test_an_htmx_filter_change_answers_with_the_rankings_partial_only(client: Client) -> None:
    ranking_compute(GLM)

    response = client.get("/?budget=3000", headers=HTMX)

    assert response.templates[0].name == "frontend/_rankings.html"
    assert "<html" not in _text(response)


def test_sorting_by_tokens_per_second_puts_the_fastest_build_first(client: Client) -> None:
    ranking_compute(GLM)

    response = client.get("/?sort=tokens_per_s&budget=6000")

    rows = response.context["ranking"]["rows"]
    speeds = [row["tokens_per_s"] for row in rows]
    assert speeds == sorted(speeds, reverse=True)


def test_a_ranking_not_yet_computed_shows_a_progress_bar_that_polls_its_run(
    client: Client, no_queue: mock.MagicMock
) -> None:
    response = client.get("/?model=llama-3.1-8b")

    run = response.context["run"]
    assert run.status == RunStatus.QUEUED
    assert "<progress" in _text(response)
    assert f"/rankings/runs/{run.pk}/" in _text(response)
    # no worker has planned its chunks yet: said so, not "0 of ? chunks"
    assert "waiting for a worker to plan its chunks" in _text(response)
    assert "?" not in _text(response).split("Computing this ranking")[1].split("</label>")[0]


def test_the_run_partial_turns_into_the_table_when_the_ranking_is_done(client: Client) -> None:
    run = ranking_compute(GLM)

    response = client.get(f"/rankings/runs/{run.pk}/?budget=4000", headers=HTMX)

    assert "<progress" not in _text(response)
    assert all(row["price_usd"] <= 4000 for row in response.context["ranking"]["rows"])


def test_a_bad_sequence_length_shows_the_engine_message_next_to_its_field(client: Client) -> None:
    response = client.get("/?seq_len=0")

    form = response.context["form"]
    assert form.errors["seq_len"] == ["must be a positive integer ≤ 131072"]
    assert 'id="id_seq_len_error"' in _text(response)


def test_a_model_too_large_for_every_catalog_gpu_is_labelled_so(client: Client) -> None:
    with mock.patch("frontend.selectors.largest_catalog_gpu_vram_gb", return_value=8.0):
        response = client.get("/?quant=BF16", headers=HTMX)

    labels = dict(response.context["form"].fields["model"].choices)
    assert labels["glm-4.7"].endswith("fits no catalog GPU")
    assert labels["llama-3.1-8b"].endswith("fits a catalog build")


def test_a_build_page_lists_its_parts_with_prices_vendors_and_dates(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_A}/")

    parts = response.context["result"]["build"]["parts"]
    assert {p["name"] for p in parts} >= {"RTX 4090", "Ryzen 5 7600"}
    assert all(p["price_vendor"] and p["price_observed_on"] for p in parts)
    assert "$2,700" in _text(response)


def test_build_a_reproduces_the_seed_speed_and_explains_it_is_compute_bound(
    client: Client,
) -> None:
    response = client.get(f"/builds/{BUILD_A}/?mode=reference")

    assert round(response.context["headline"]["tokens_per_s"]) == 277  # seed 000, build A
    assert response.context["explanation"][0].startswith("Compute-bound")
    assert response.context["timeline"]["computes"]  # from the refined comparison run


def test_a_build_page_heads_with_the_default_mode_and_labels_the_other_as_a_comparison(
    client: Client,
) -> None:
    default = client.get(f"/builds/{BUILD_A}/")
    reference = client.get(f"/builds/{BUILD_A}/?mode=reference")

    modes = default.context["modes"]
    assert modes["mode"] == modes["default"] == modes["better"] == DEFAULT_MODE == "refined"
    # the comparison is the other mode's own headline, and the other way round
    assert modes["other"]["mode"] == "reference"
    assert modes["other"]["tokens_per_s"] == reference.context["headline"]["tokens_per_s"]
    assert round(modes["other"]["tokens_per_s"]) == 277
    back = reference.context["modes"]["other"]
    assert back["tokens_per_s"] == default.context["headline"]["tokens_per_s"]
    page = _text(default)
    assert "Headline: refined mode (the default)" in page
    assert "frozen_base" in page  # why they differ, refinement by refinement
    assert f"{round(modes['other']['tokens_per_s'])}</span> tokens/s" in page
    scores = {score["mode"]: score for score in modes["cv"]}
    assert scores["refined"]["expressed"] >= scores["reference"]["expressed"]


def test_a_build_page_for_a_model_that_cannot_fit_says_why(client: Client) -> None:
    response = client.get(f"/builds/{BUILD_A}/?model=deepseek-v3&quant=BF16")

    assert "cannot fit" in " ".join(response.context["form"].non_field_errors())
    assert "result" not in response.context


def test_an_unknown_build_is_404(client: Client) -> None:
    assert client.get("/builds/no-such-build/").status_code == 404


def test_a_ranked_candidate_opens_as_a_build_report(client: Client) -> None:
    run = ranking_compute(GLM)
    # The top row as the rankings page shows it, priced now.
    row = ranking_view(run=run, budget_usd=None, sort=DEFAULT_SORT, limit=1)["rows"][0]
    parts = ",".join(f"{p['part_id']}:{p['quantity']}" for p in row["parts"])

    response = client.get(f"/builds/candidate/?parts={parts}")

    assert response.context["result"]["build"]["price_usd"] == row["price_usd"]


def test_comparing_two_builds_marks_the_rows_that_differ(client: Client) -> None:
    response = client.get(f"/compare/?builds={BUILD_A}&builds={BUILD_C}")

    rows = {row["label"]: row for row in response.context["comparison"]["rows"]}
    assert rows["GPU"]["differs"]
    assert not rows["GPUs"]["differs"]
    assert [c["best"] for c in rows["price (USD)"]["cells"]] == [True, False]


def test_comparing_a_single_build_asks_for_two_to_four(client: Client) -> None:
    response = client.get(f"/compare/?builds={BUILD_A}")

    assert "Pick 2 to 4 builds" in response.context["form"].errors["builds"][0]


def test_a_custom_gpu_is_simulated_and_shown_with_its_charts(client: Client) -> None:
    response = client.post("/simulate/", CUSTOM, headers=HTMX)

    assert response.context["result"]["hardware"]["gpu"]["name"] == "what-if"
    assert 'id="curve-data"' in _text(response)
    assert 'id="timeline-data"' in _text(response)


def test_the_summary_names_the_gpus_peak_and_the_sustained_rate_it_trains_at(
    client: Client,
) -> None:
    """A given sustained rate is shown beside the peak with its unit; without one, the page
    says the median measured share stands in."""
    given = client.post("/simulate/", {**CUSTOM, "bf16_sustained_tflops": "180"}, headers=HTMX)
    assert "200 TFLOPS peak, 180 TFLOPS sustained" in _text(given)
    prior = client.post("/simulate/", CUSTOM, headers=HTMX)
    assert "200 TFLOPS peak, sustained at the median measured share" in _text(prior)


def test_a_custom_zero_vram_shows_the_engine_error_next_to_the_vram_field(
    client: Client,
) -> None:
    response = client.post("/simulate/", {**CUSTOM, "vram_gb": "0"}, headers=HTMX)

    assert response.context["form"].errors["vram_gb"] == ["must be a number from 0.25 to 65536"]


def test_a_custom_ranking_is_queued_and_answered_with_its_progress_bar(
    client: Client, no_queue: mock.MagicMock, django_capture_on_commit_callbacks: Any
) -> None:
    body = {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": "1024",
            "tokens": "50000000", "budget_usd": "5000", "gpu_count_max": "1"}  # fmt: skip

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/simulate/ranking/", body, headers=HTMX)

    run = SimulationRun.objects.get()
    assert run.input["ranking"]["budget_usd"] == 5000
    assert no_queue.called
    assert "<progress" in _text(response)


def test_the_catalog_lists_gpus_with_their_current_price_vendor_and_date(client: Client) -> None:
    response = client.get("/catalog/")

    rows = {row["part"].name: row for row in response.context["table"]["rows"]}
    assert rows["RTX 4090"]["price"].observation.vendor == "seed 000"
    assert "VRAM" in response.context["table"]["columns"]


@pytest.mark.parametrize(
    "kind",
    ["gpu", "cpu", "motherboard", "nvme_drive", "nvme_card", "ram_kit", "psu", "case", "system"],
)
def test_every_catalog_tab_lists_its_parts_with_spec_columns(client: Client, kind: str) -> None:
    response = client.get("/catalog/", {"kind": kind})

    assert response.status_code == 200
    table = response.context["table"]
    assert table["rows"]
    assert all(len(row["specs"]) == len(table["columns"]) for row in table["rows"])


def test_the_whole_system_tab_shows_unified_memory(client: Client) -> None:
    response = client.get("/catalog/", {"kind": "system"})

    assert "unified memory" in response.context["table"]["columns"]
    assert "M4 Max" in _text(response) or "M3 Ultra" in _text(response)


def test_an_unknown_part_kind_is_404(client: Client) -> None:
    assert client.get("/catalog/?kind=toaster").status_code == 404


def test_a_part_page_charts_its_valid_price_observations(client: Client) -> None:
    response = client.get("/catalog/parts/rtx-4090/")

    assert response.context["chart"]["series"]
    assert 'id="price-data"' in _text(response)


def test_the_api_page_shows_a_curl_example_for_post_simulate(client: Client) -> None:
    response = client.get("/api-guide/")

    assert "curl -s -X POST http://testserver/api/simulate" in _text(response)


def test_every_simulate_example_on_the_api_page_answers_200(client: Client) -> None:
    """The guide's request bodies are real: each one sent to /api/simulate as shown (the
    serving run's among them) is answered, not refused."""
    page = html.unescape(_text(client.get("/api-guide/")))
    bodies = re.findall(r"/api/simulate \\\s*-H '[^']*' \\\s*-d '(\{.*?\})'</code>", page, re.S)
    assert len(bodies) >= 2
    results = []
    for body in bodies:
        response = client.post("/api/simulate", json.loads(body), content_type="application/json")
        assert response.status_code == 200, (body, response.json())
        results.append(response.json()["result"])
    assert any(result.get("serving_run") for result in results)


def test_favicon_ico_leads_to_the_sites_icon(client: Client) -> None:
    response = client.get("/favicon.ico")

    assert response.status_code == 301
    assert client.get(response["Location"]).status_code == 200


def test_an_unknown_page_is_a_404_in_the_sites_layout(client: Client) -> None:
    response = client.get("/no-such-page/")

    assert response.status_code == 404
    assert "Page not found" in _text(response)
    assert 'class="site-header"' in _text(response)


def test_the_compare_page_asks_before_it_complains(client: Client) -> None:
    response = client.get("/compare/")

    assert response.status_code == 200
    assert "This field is required" not in _text(response)
    assert not response.context["form"].is_bound


def test_compared_counts_print_as_whole_numbers(client: Client) -> None:
    html = _text(client.get("/compare/", {"builds": [BUILD_A, BUILD_C]}))

    for label in ("GPUs", "resident layers", "micro-batch"):
        row = re.search(rf'<th scope="row">{label}</th>(.*?)</tr>', html, re.S)
        assert row is not None, label
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", row.group(1))
        assert cells, label
        assert all(re.fullmatch(r"[\d,]+", cell) for cell in cells), (label, cells)


def test_the_ranking_says_what_its_split_column_means(client: Client) -> None:
    ranking_compute(GLM)

    html = _text(client.get("/"))

    assert "Layers on GPU · batch" in html
    assert re.search(r'title="\d+ layers? kept on the GPU, \d+ sequences? per micro-batch"', html)
    assert "R=" not in html
