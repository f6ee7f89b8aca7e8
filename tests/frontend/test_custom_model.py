"""A model brought as a Hugging Face config.json on the pages (no browser, no worker): checked
with its error on the field, stored once, named in a shareable address, and ranked, simulated
and compared with as a shipped model is."""

import json
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from catalog.models import Build
from frontend.models import CustomModel
from frontend.templatetags.planner import num
from tests.frontend.conftest import REPO_ROOT, ranking_compute

pytestmark = pytest.mark.usefixtures("catalog")

BUILD_A = "seed-a-budget-single-gpu"
BUILD_C = "seed-c-single-rtx-5090"
HTMX = {"HX-Request": "true"}
_SHIPPED = json.loads((REPO_ROOT / "simulator/engine/data/models/glm-4.7.json").read_text())
# GLM-4.7's config.json as Hugging Face ships it: none of the planner's own "_" keys.
CONFIG = {key: value for key, value in _SHIPPED.items() if not key.startswith("_")}
NAME = "My GLM"
WORKLOAD = {"quant": "NF4d+NF2e", "seq_len": "1024", "tokens": "50000000", "mode": "refined"}
CUSTOM_GPU = {
    "gpu_name": "what-if", "vram_gb": "48", "bf16_tflops": "200", "pcie_gbps": "44",
    "gpu_count": "1", "nvme_gbps": "12", "ram_gb": "64", "utilization": "0.7",
    "lora_rank": "64", "model": "glm-4.7", **WORKLOAD,
}  # fmt: skip
SLUG = re.compile(r"custom:[0-9a-f]{16}")
HEADLINE = re.compile(r'<span class="big">([\d,.]+)</span> tokens/s')


def _text(response: Any) -> str:
    return str(response.content.decode())


def _bring(client: Client, text: str, next_url: str = "/", **extra: Any) -> Any:
    data = {"model_name": NAME, "model_config": text, "next": next_url}
    return client.post("/models/", data, **extra)


def _headline(response: Any) -> str:
    assert response.status_code == 200
    found = HEADLINE.search(_text(response))
    assert found is not None, "no result headline on the page"
    return found[1]


def _stored_slug(location: str) -> str:
    found = SLUG.search(location.replace("%3A", ":"))
    assert found is not None, location
    return found[0]


def test_a_pasted_config_comes_back_as_a_shareable_address_with_the_same_figures() -> None:
    page = f"/builds/{BUILD_A}/?quant=NF4d%2BNF2e&seq_len=1024&tokens=50000000&mode=refined"
    response = _bring(Client(), json.dumps(CONFIG, indent=2), next_url=page)

    assert response.status_code == 303
    slug = _stored_slug(response["Location"])
    assert response["Location"].startswith(f"/builds/{BUILD_A}/?quant=NF4d%2BNF2e&")
    stored = CustomModel.objects.get()
    assert (stored.slug, stored.name) == (slug, NAME)
    assert stored.config == {**CONFIG, "_display_name": NAME}

    # Another visitor opening the link: the model is in the list, selected, and simulated.
    shared = Client().get(response["Location"])
    assert f'<option value="{slug}" selected>{NAME} (yours)' in _text(shared)
    api = APIClient().post(
        "/api/simulate",
        {"workload": {"model": slug, "model_config": stored.config, **WORKLOAD, "seq_len": 1024,
                      "tokens": 50_000_000},
         "build_id": Build.objects.get(slug=BUILD_A).pk},
        format="json",
    )  # fmt: skip
    assert api.status_code == 200, api.content
    assert _headline(shared) == num(api.json()["result"]["best"]["tokens_per_s"])
    assert _headline(Client().get(response["Location"])) == _headline(shared)


def test_the_same_config_pasted_again_is_the_same_stored_model_and_link() -> None:
    first = _bring(Client(), json.dumps(CONFIG))
    again = _bring(Client(), json.dumps(CONFIG, indent=4, sort_keys=True))

    assert _stored_slug(first["Location"]) == _stored_slug(again["Location"])
    assert CustomModel.objects.count() == 1


def test_htmx_paste_redirects_the_browser_to_its_current_page_with_the_model() -> None:
    current = f"http://testserver/compare/?builds={BUILD_A}&builds={BUILD_C}&quant=NF4"
    response = _bring(Client(), json.dumps(CONFIG), next_url="/", HTTP_HX_CURRENT_URL=current,
                      headers=HTMX)  # fmt: skip

    assert response.status_code == 200
    target = response["HX-Redirect"]
    assert target.startswith(f"/compare/?builds={BUILD_A}&builds={BUILD_C}&quant=NF4&model=")
    assert _stored_slug(target) == CustomModel.objects.get().slug


@pytest.mark.parametrize("next_url", ["https://elsewhere.example/", "//elsewhere.example/",
                                      "/catalog/", "/no-such-page/"])  # fmt: skip
def test_a_next_address_off_the_workload_pages_lands_on_the_rankings(next_url: str) -> None:
    response = _bring(Client(), json.dumps(CONFIG), next_url=next_url)

    assert response.status_code == 303
    assert response["Location"] == f"/?model={CustomModel.objects.get().slug.replace(':', '%3A')}"


BAD_CONFIGS = {
    "missing layers": (
        json.dumps({k: v for k, v in CONFIG.items() if k != "num_hidden_layers"}),
        "model_config.num_hidden_layers: is required in config.json.",
    ),
    "not JSON": ('{"hidden_size": 5120,', "model_config: is not valid JSON: Expecting"),
    "a list": ("[1, 2, 3]", "model_config: must be a JSON object (a config.json), got a list."),
    "a NUL byte": (
        json.dumps(CONFIG)[:-1] + ', "x": 1}\x00',
        "model_config: must not contain control characters (such as NUL).",
    ),
    "an escaped NUL": (
        json.dumps({**CONFIG, "model_type": "glm\u0000"}),
        "model_config.model_type: must not contain control characters (such as U+0000).",
    ),
    "10**9 layers": (
        json.dumps({**CONFIG, "num_hidden_layers": 10**9}),
        "model_config.num_hidden_layers: must be an integer from 1 to 1024, got 1000000000.",
    ),
    "infinity": (json.dumps(CONFIG)[:-1] + ', "rope_theta": 1e999}', "is too large"),
    "oversized": (
        json.dumps({**CONFIG, "notes": "x" * 70_000}),
        "model_config: config.json is 70,",
    ),
}


@pytest.mark.parametrize("case", BAD_CONFIGS)
def test_a_bad_config_shows_why_on_its_field_and_stores_nothing(case: str) -> None:
    text, message = BAD_CONFIGS[case]

    page = _bring(Client(), text, next_url=f"/builds/{BUILD_A}/")
    swapped = _bring(Client(), text, next_url=f"/builds/{BUILD_A}/", headers=HTMX)
    simulated = Client().post("/simulate/", {**CUSTOM_GPU, "model_config": text})

    assert page.status_code == 400
    assert f'href="/builds/{BUILD_A}/"' in _text(page)  # back to the page it came from
    assert swapped.status_code == 200  # htmx swaps the box with the error in place
    assert simulated.status_code == 200
    for response in (page, swapped, simulated):
        body = _text(response).replace("&quot;", '"').replace("&#x27;", "'")
        assert message in body, body[:3000]
        assert re.search(r'<details class="own-model"[^>]* open>', body)  # the box stays open
    assert 'id="custom-output"' not in _text(simulated)
    assert CustomModel.objects.count() == 0


def test_an_oversized_upload_is_refused_on_the_file_field() -> None:
    upload = SimpleUploadedFile("config.json", b" " * 70_000 + json.dumps(CONFIG).encode())

    response = Client().post("/models/", {"model_file": upload, "next": "/"})

    assert response.status_code == 400
    assert "the file is 7" in _text(response)
    assert CustomModel.objects.count() == 0


def test_nothing_pasted_asks_for_a_config() -> None:
    response = Client().post("/models/", {"model_config": "  ", "next": "/"})

    assert response.status_code == 400
    assert "Paste a config.json or pick its file." in _text(response)


def test_a_link_to_a_model_not_stored_here_says_so_on_the_model_field() -> None:
    response = Client().get(f"/builds/{BUILD_A}/?model=custom:0123456789abcdef")

    assert response.status_code == 200
    assert "No model custom:0123456789abcdef is stored on this site" in _text(response)
    assert HEADLINE.search(_text(response)) is None


def test_the_rankings_rank_the_catalog_for_a_brought_model() -> None:
    slug = _stored_slug(_bring(Client(), json.dumps(CONFIG))["Location"])
    stored = CustomModel.objects.get()
    workload = {"kind": "train", "model": slug, "model_config": stored.config,
                "quant": "NF4d+NF2e", "seq_len": 1024, "tokens": 50_000_000}  # fmt: skip
    ranking_compute(workload)

    response = Client().get(f"/?model={slug}")

    text = _text(response)
    assert response.status_code == 200
    assert 'id="scatter-data"' in text
    assert f"for {slug} in NF4d+NF2e" in text
    # Each row opens its build with the same model: the link names it by its slug.
    candidate = re.search(r'href="(/builds/candidate/\?[^"]+)"', text)
    assert candidate is not None
    link = candidate[1].replace("&amp;", "&")
    assert f"model={slug.replace(':', '%3A')}" in link
    assert _headline(Client().get(link))


def test_two_builds_compare_with_a_brought_model() -> None:
    slug = _stored_slug(_bring(Client(), json.dumps(CONFIG))["Location"])

    response = Client().get(f"/compare/?builds={BUILD_A}&builds={BUILD_C}&model={slug}")

    text = _text(response)
    assert response.status_code == 200
    assert 'class="compare"' in text
    assert "Build A: Budget Single GPU" in text
    assert "Build C: Single RTX 5090" in text
    assert f'<option value="{slug}" selected>{NAME} (yours)' in text


def test_the_simulate_page_takes_a_pasted_config_and_links_to_the_result() -> None:
    response = Client().post("/simulate/", {**CUSTOM_GPU, "model_config": json.dumps(CONFIG),
                                            "model_name": NAME})  # fmt: skip

    text = _text(response)
    slug = CustomModel.objects.get().slug
    assert f'<option value="{slug}" selected>{NAME} (yours)' in text
    assert re.search(r'id="id_model_config">\s*</textarea>', text)  # emptied once stored
    share = re.search(r'id="share-link" href="([^"]+)"', text)
    assert share is not None
    assert f"model={slug.replace(':', '%3A')}" in share[1]
    assert _headline(Client().get(share[1].replace("&amp;", "&"))) == _headline(response)


def test_the_simulate_page_takes_an_uploaded_config_json() -> None:
    upload = SimpleUploadedFile("config.json", json.dumps(CONFIG).encode(), "application/json")

    response = Client().post("/simulate/", {**CUSTOM_GPU, "model_file": upload})

    stored = CustomModel.objects.get()
    assert stored.name == "Your glm4_moe model"
    assert f'<option value="{stored.slug}" selected>' in _text(response)
    assert _headline(response)
