"""The serving page (inference rankings) through Django's test client."""

import re
from typing import Any
from unittest import mock

import pytest
from django.test import Client

from frontend.serving_selectors import placement_label
from simulator.models import SimulationRun
from tests.frontend.conftest import ranking_compute

FLASH: dict[str, Any] = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M",
                         "context": 32768, "placement": "auto"}  # fmt: skip
pytestmark = pytest.mark.usefixtures("catalog")


def _text(response: Any) -> str:
    return str(response.content.decode())


def test_the_serving_page_ranks_builds_by_dollars_per_decode_speed(client: Client) -> None:
    ranking_compute(FLASH)

    response = client.get("/serve/")

    assert response.status_code == 200
    rows = response.context["ranking"]["rows"]
    assert len(rows) > 10
    costs = [row["usd_per_decode_tokens_per_s"] for row in rows]
    assert costs == sorted(costs)
    assert {row["placement"] for row in rows} <= {"gpu", "hybrid", "cpu", "unified"}
    assert all(row["max_context"] >= 32768 for row in rows)
    assert all(row["error_band"]["category"].startswith("inference_") for row in rows)
    page = _text(response)
    assert 'id="serving-data"' in page
    assert "Prefill tokens/s" in page
    assert "Largest context" in page


def test_sorting_by_decode_speed_and_a_budget_filter_apply(client: Client) -> None:
    ranking_compute(FLASH)

    response = client.get("/serve/?sort=decode_tokens_per_s&budget=3000")

    rows = response.context["ranking"]["rows"]
    speeds = [row["decode_tokens_per_s"] for row in rows]
    assert rows
    assert speeds == sorted(speeds, reverse=True)
    assert all(row["price_usd"] <= 3000 for row in rows)


def test_an_htmx_change_answers_with_the_serving_partial_only(client: Client) -> None:
    ranking_compute(FLASH)

    response = client.get("/serve/?budget=5000", headers={"HX-Request": "true"})

    assert response.templates[0].name == "frontend/_serving.html"
    assert "<html" not in _text(response)


def test_a_context_the_engine_refuses_is_shown_on_its_field(client: Client) -> None:
    response = client.get("/serve/?context=0")

    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "context" in errors
    assert not SimulationRun.objects.exists()


def test_an_inference_ranking_not_yet_computed_polls_its_run(
    client: Client, no_queue: mock.MagicMock, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = client.get("/serve/?model=llama-3.1-8b&quant=Q8_0")

    run = SimulationRun.objects.get()
    assert run.input["workload"]["kind"] == "infer"
    assert f"/serve/runs/{run.pk}/" in _text(response)
    assert "<progress" in _text(response)
    no_queue.assert_called_once_with("simulator.ranking_start", args=[str(run.pk)])


@pytest.mark.parametrize(
    ("row", "label"),
    [
        ({"placement": "gpu", "weights_gb": {"gpu": 17.0}}, "all on GPU"),
        ({"placement": "hybrid", "offload_from_layer": 47, "weights_gb": {"gpu": 17.0, "cpu": 0.0}},
         "all on GPU"),
        ({"placement": "hybrid", "offload_from_layer": 30, "weights_gb": {"gpu": 8.0, "cpu": 9.25}},
         "hybrid: experts from layer 30 on in CPU RAM (9.2 GB)"),
        ({"placement": "gpu", "gpu_layers": 45, "cpu_layers": 35,
          "weights_gb": {"gpu": 22.3, "cpu": 17.5}},
         "45 layers on GPU, the first 35 in CPU RAM (17.5 GB)"),
        ({"placement": "cpu", "weights_gb": {"cpu": 17.0}}, "all in CPU RAM"),
        ({"placement": "unified", "weights_gb": {"unified": 17.0}}, "unified memory"),
    ],
)  # fmt: skip
def test_placements_are_labelled_by_what_they_do(row: dict[str, Any], label: str) -> None:
    assert placement_label(row) == label


def test_every_serving_column_header_explains_itself_and_rows_link_their_build_page(
    client: Client,
) -> None:
    ranking_compute(FLASH)

    page = _text(client.get("/serve/"))

    headers = re.findall(r'<th scope="col"( title="[^"]+")?[^>]*>', page)
    assert headers[0] == ""  # the rank column: a number, nothing to explain
    assert headers[1] == ""  # the build's name
    assert all(title for title in headers[2:]), headers
    assert page.count('<a href="/builds/candidate/serve/?parts=') == 50


# Each build's fastest placement (all on GPUs where the model fits), and hybrid fixed: a
# hybrid row that offloads nothing reads "all on GPU" and is offered the figure too.
@pytest.mark.parametrize("placement", ["auto", "hybrid"])
def test_an_all_on_gpu_moe_row_offers_the_experts_in_ram_figure_its_build_page_shows(
    client: Client, placement: str
) -> None:
    ranking_compute({**FLASH, "placement": placement})

    response = client.get("/serve/", {**FLASH, "placement": placement})

    rows = response.context["ranking"]["rows"]
    offered = [row for row in rows if row["experts_in_ram"] is not None]
    # Every PC row keeping the MoE model all on the GPU, and no other row.
    assert offered == [row for row in rows
                       if row["placement_label"] == "all on GPU" and row["cpu_name"]]  # fmt: skip
    assert offered, "the ranking has rows keeping GLM-4.7-Flash all on the GPU"
    assert {row["placement"] for row in offered} == {"gpu" if placement == "auto" else "hybrid"}
    page = _text(response)
    for row in offered[:3]:
        # The row's build page shows the same figure beside its headline.
        opened = client.get(f"/builds/candidate/serve/?{row['link_query']}").context
        assert opened["placement_words"] == "all on GPU"
        forced = opened["experts_in_ram"]["decode_tokens_per_s"]
        assert row["experts_in_ram"]["decode_tokens_per_s"] == pytest.approx(forced, rel=1e-9)
        assert forced < row["decode_tokens_per_s"]
        link = f'href="/builds/candidate/serve/?{row["link_query"]}#experts-in-ram"'
        assert link.replace("&", "&amp;") in page
        assert f"experts in RAM:\n          {forced:,.1f} tokens/s</a>" in page


def test_rows_offloading_experts_or_serving_a_dense_model_offer_no_forced_figure(
    client: Client,
) -> None:
    ranking_compute({**FLASH, "placement": "hybrid", "context": 131072})
    ranking_compute({**FLASH, "model": "llama-3.1-8b"})

    offloading = client.get("/serve/", {**FLASH, "placement": "hybrid", "context": 131072})
    dense = client.get("/serve/", {**FLASH, "model": "llama-3.1-8b"})

    offloaded = [r for r in offloading.context["ranking"]["rows"] if r["weights_gb"].get("cpu")]
    assert offloaded, "some build offloads experts at 128K tokens of context"
    assert all(row["experts_in_ram"] is None for row in offloaded)
    assert all(row["experts_in_ram"] is None for row in dense.context["ranking"]["rows"])
    assert "experts in RAM" not in _text(dense)


def test_a_row_whose_ram_cannot_hold_the_experts_says_the_forced_placement_does_not_run(
    client: Client,
) -> None:
    oss = {**FLASH, "model": "gpt-oss-120b", "quant": "MXFP4", "context": 4096}
    ranking_compute(oss)

    response = client.get("/serve/", oss)

    refused = [r for r in response.context["ranking"]["rows"]
               if r["experts_in_ram"] and "refused" in r["experts_in_ram"]]  # fmt: skip
    assert refused, "a multi-GPU build with 32 GB of RAM holds gpt-oss-120b on its GPUs only"
    row = refused[0]
    # The same reason its build page gives beside the headline.
    opened = client.get(f"/builds/candidate/serve/?{row['link_query']}").context
    assert row["experts_in_ram"]["refused"] == opened["experts_in_ram_refused"]
    assert "in cpu memory" in row["experts_in_ram"]["refused"]
    assert "experts in RAM:\n          does not run</a>" in _text(response)


def test_a_dense_model_larger_than_a_builds_gpus_keeps_the_layers_that_fit_on_its_page(
    client: Client,
) -> None:
    """Llama 3.1 70B Q4_K_M (about 40 GB): the cheapest builds, whose GPUs are short and which
    have a CPU, run it with as many whole layers on the GPUs as fit, labelled so, and each
    row's build page shows the same split and decode speed."""
    dense: dict[str, Any] = {"kind": "infer", "model": "llama-3.1-70b", "quant": "Q4_K_M",
                             "context": 8192, "placement": "auto"}  # fmt: skip
    ranking_compute(dense)

    rows = client.get("/serve/", {**dense, "sort": "price"}).context["ranking"]["rows"]
    split = [row for row in rows if row["placement"] == "gpu" and row["cpu_layers"]]
    assert split, "some builds keep part of the model in CPU RAM"
    for row in split[:2]:
        assert row["placement_label"].startswith(f"{row['gpu_layers']} layers on GPU")
        assert row["gpu_layers"] + row["cpu_layers"] == 80
        opened = client.get(f"/builds/candidate/serve/?{row['link_query']}").context
        assert opened["placement_words"] == row["placement_label"]
        assert opened["depth_chart"]["kv_location"] == "VRAM and CPU RAM"  # the cache splits
        cpu_only = opened["placements_tried"][-1]  # searched beside the split, it runs
        assert cpu_only["label"] == "CPU only"
        assert cpu_only["tokens_per_s"] is not None, cpu_only["reason"]
        assert opened["result"]["decode_tokens_per_s"] == pytest.approx(
            row["decode_tokens_per_s"], rel=1e-9
        )
