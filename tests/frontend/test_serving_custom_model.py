"""A model brought as a Hugging Face config.json on the serving pages (the ranking, a build's
serving page and serving on the Simulate page), through Django's test client on the real
database: the same box, checks and shareable address as the training pages, and the same
figures as POST /api/simulate given the same `model_config`."""

import json
import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from rest_framework.test import APIClient

from catalog.models import Build
from frontend.models import CustomModel
from tests.frontend.conftest import REPO_ROOT, ranking_compute
from tests.frontend.test_custom_model import BAD_CONFIGS

pytestmark = pytest.mark.usefixtures("catalog")

BUILD_B = "seed-b-dual-4090-consumer"
HTMX = {"HX-Request": "true"}
_SHIPPED = json.loads((REPO_ROOT / "simulator/engine/data/models/glm-4.7-flash.json").read_text())
# GLM-4.7-Flash's config.json as Hugging Face ships it: none of the planner's own "_" keys.
CONFIG = {key: value for key, value in _SHIPPED.items() if not key.startswith("_")}
NAME = "My Flash"
SERVING = {"quant": "Q4_K_M", "context": "32768", "placement": "auto"}
HARDWARE = {"gpu": "RTX 4090", "gpu_count": 1, "cpu": "EPYC 9124", "ram_gb": 128}
SLUG = re.compile(r"custom:[0-9a-f]{16}")
ROW_LINK = re.compile(r'<a href="(/builds/candidate/serve/\?[^"]+)">([^<]+)</a>')
FIGURES = ("decode_tokens_per_s", "prefill_tokens_per_s", "max_context")


def _text(response: Any) -> str:
    return str(response.content.decode())


def _bring(next_url: str, text: str = "", **extra: Any) -> Any:
    data = {"model_name": NAME, "model_config": text or json.dumps(CONFIG), "next": next_url}
    return Client().post("/models/", data, **extra)


def _brought_address(next_url: str) -> tuple[str, CustomModel]:
    response = _bring(next_url)
    assert response.status_code == 303, _text(response)
    stored = CustomModel.objects.get()
    location = response["Location"]
    assert SLUG.search(unescape(location).replace("%3A", ":"))[0] == stored.slug  # type: ignore[index]
    return location, stored


def _api(body: dict[str, Any]) -> dict[str, Any]:
    response = APIClient().post("/api/simulate", body, format="json")
    assert response.status_code == 200, response.content
    result: dict[str, Any] = response.json()["result"]
    return result


def _workload(stored: CustomModel) -> dict[str, Any]:
    return {"kind": "infer", "model": stored.slug, "model_config": stored.config,
            "quant": "Q4_K_M", "context": 32768, "placement": "auto"}  # fmt: skip


def test_a_config_brought_on_a_builds_serving_page_serves_as_the_api_does() -> None:
    page = f"/builds/{BUILD_B}/serve/?quant=Q4_K_M&context=32768&placement=auto"
    location, stored = _brought_address(page)

    assert location.startswith(f"/builds/{BUILD_B}/serve/?quant=Q4_K_M&context=32768&")
    shared = Client().get(location)  # another visitor opening the link
    assert shared.status_code == 200
    text = _text(shared)
    assert f'<option value="{stored.slug}" selected>{NAME} (yours)</option>' in text
    assert f"For {NAME} in Q4_K_M at 32,768 tokens of context" in text
    result = shared.context["result"]
    api = _api({"workload": _workload(stored), "build_id": Build.objects.get(slug=BUILD_B).pk})
    for figure in FIGURES:
        assert result[figure] == pytest.approx(api[figure], rel=1e-9), figure
    assert f'id="decode-speed">{api["decode_tokens_per_s"]:,.1f}<' in text


def test_a_config_brought_on_the_serving_simulate_page_serves_as_the_api_does() -> None:
    query = "&".join(f"{k}={v}" for k, v in {**SERVING, **HARDWARE}.items()).replace(" ", "+")
    location, stored = _brought_address(f"/simulate/serve/?{query}")

    assert location.startswith("/simulate/serve/?")
    shared = Client().get(location)
    assert shared.status_code == 200
    api = _api({"workload": _workload(stored), "hardware": HARDWARE})
    for figure in FIGURES:
        assert shared.context["result"][figure] == pytest.approx(api[figure], rel=1e-9), figure
    assert f'id="decode-speed">{api["decode_tokens_per_s"]:,.1f}<' in _text(shared)


def test_a_config_brought_on_the_serving_ranking_ranks_and_its_rows_agree_with_the_api() -> None:
    location, stored = _brought_address("/serve/?quant=Q4_K_M&context=32768&placement=auto")
    ranking_compute(_workload(stored))

    assert location.startswith("/serve/?")
    page = Client().get(location)
    ranking = page.context["ranking"]
    assert ranking["workload"]["model_config"] == stored.config
    assert f"serve {NAME} in Q4_K_M at 32,768 tokens" in _text(page)
    links = [unescape(href) for href, _ in ROW_LINK.findall(_text(page))]
    assert len(links) == len(ranking["rows"]) > 0
    row, link = ranking["rows"][0], links[0]
    assert parse_qs(urlsplit(link).query)["model"] == [stored.slug]
    # The row's build page, opened from its link, and the API agree with the row.
    context = Client().get(link).context
    opened = context["result"]
    # Brought as a config.json, the MoE kept all on the GPU has its experts-in-RAM figure too.
    assert row["placement_label"] == context["placement_words"] == "all on GPU"
    assert row["experts_in_ram"]["decode_tokens_per_s"] == pytest.approx(
        context["experts_in_ram"]["decode_tokens_per_s"], rel=1e-9
    )
    parts = [{"part_id": int(p), "quantity": int(q)}
             for p, q in (item.split(":") for item in row["parts_query"].split(","))]  # fmt: skip
    api = _api({"workload": _workload(stored), "parts": parts})
    for figure in FIGURES:
        assert opened[figure] == pytest.approx(row[figure], rel=1e-9), figure
        assert api[figure] == pytest.approx(row[figure], rel=1e-9), figure


@pytest.mark.parametrize("case", ["missing layers", "not JSON", "10**9 layers"])
def test_a_bad_config_on_a_serving_page_shows_why_on_its_field_and_stores_nothing(
    case: str,
) -> None:
    text, message = BAD_CONFIGS[case]

    page = _bring("/simulate/serve/?context=4096", text)
    swapped = _bring("/simulate/serve/?context=4096", text, headers=HTMX)

    assert page.status_code == 400
    assert 'href="/simulate/serve/?context=4096"' in _text(page)  # back to the serving page
    assert swapped.status_code == 200  # htmx swaps the box in place
    for response in (page, swapped):
        assert message in unescape(_text(response))
    assert not CustomModel.objects.exists()


@pytest.mark.parametrize("page", ["/serve/", f"/builds/{BUILD_B}/serve/", "/simulate/serve/"])
def test_a_serving_page_naming_a_model_not_stored_here_says_so_on_the_model_field(
    page: str, no_queue: Any
) -> None:
    response = Client().get(page, {"model": "custom:0123456789abcdef"})

    assert response.status_code == 200
    assert "No model custom:0123456789abcdef is stored on this site" in unescape(_text(response))
    assert "result" not in response.context or not response.context["result"]


@pytest.mark.parametrize("page", ["/serve/", f"/builds/{BUILD_B}/serve/", "/simulate/serve/"])
def test_every_serving_page_offers_the_your_model_box_back_to_itself(
    page: str, no_queue: Any
) -> None:
    response = Client().get(page)

    assert 'action="/models/"' in _text(response)
    assert f'name="next" value="{page}"' in _text(response)
