"""The cost budget of POST /api/simulate: a request asking for more work than
SIMULATE_MAX_COST_UNITS is a 400 with its figures, before anything is stored or queued."""

from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from simulator.engine.model.registry import load_model
from simulator.models import SimulationRun

GLM_LAYERS = load_model("glm-4.7").num_layers
RTX_4090 = {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22}


def _ranking(seq_len: int, **options: Any) -> dict[str, Any]:
    workload = {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": seq_len,
                "tokens": 50_000_000}  # fmt: skip
    return {"workload": workload, "ranking": options}


def _post(body: object) -> Any:
    return APIClient().post("/api/simulate", body, format="json")


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    cache.clear()  # candidate counts are cached per options and parts


def test_a_whole_catalog_ranking_at_128k_tokens_is_over_budget(catalog: None) -> None:
    response = _post(_ranking(131072))

    assert response.status_code == 400
    message = response.json()["errors"]["request"]
    # builds × splits × layers × blocks, each figure shown; 128 blocks of 1,024 tokens.
    assert f"× {GLM_LAYERS + 1} splits × {GLM_LAYERS} layers × 128 blocks" in message
    builds = int(message.split("(")[1].split(" builds")[0])
    assert builds * (GLM_LAYERS + 1) * GLM_LAYERS * 128 > 2_000_000_000
    assert "ranking.gpu_count_max" in message
    assert not SimulationRun.objects.exists()


def test_the_same_ranking_narrowed_fits_the_budget_and_is_queued(catalog: None) -> None:
    response = _post(_ranking(131072, gpu_count_max=1))

    assert response.status_code == 202
    assert SimulationRun.objects.filter(kind="ranking").count() == 1


def test_a_price_budget_does_not_narrow_the_work(catalog: None) -> None:
    # Every candidate is simulated whatever it costs (the budget filters when it is read).
    response = _post(_ranking(131072, budget_usd=4000))

    assert response.status_code == 400
    assert "ranking.budget_usd" not in response.json()["errors"]["request"]
    assert not SimulationRun.objects.exists()


def test_the_default_ranking_is_well_within_the_budget(catalog: None, settings: Any) -> None:
    settings.SIMULATE_MAX_COST_UNITS = 100_000_000  # 20x below the default limit
    assert _post(_ranking(1024)).status_code == 202


@pytest.mark.django_db
def test_a_single_simulation_over_a_lowered_budget_is_refused(settings: Any) -> None:
    settings.SIMULATE_MAX_COST_UNITS = GLM_LAYERS * (GLM_LAYERS + 1) * 2  # 2 blocks at most
    body = {"workload": {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 4096},
            "hardware": {"gpu": {**RTX_4090, "vram_gb": 96}, "ram_gb": 64}}  # fmt: skip

    refused = _post(body)
    allowed = _post({**body, "workload": {**body["workload"], "seq_len": 2048}})

    assert refused.status_code == 400
    assert "1 builds" in refused.json()["detail"]
    assert "shorten the sequence" in refused.json()["detail"]
    assert allowed.status_code == 200
    assert SimulationRun.objects.count() == 1


@pytest.mark.django_db
def test_an_inline_model_config_is_costed_by_its_own_layers(settings: Any) -> None:
    config = {
        "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
    }  # fmt: skip
    body = {"workload": {"model": "my-llama", "model_config": config, "quant": "NF4",
                         "seq_len": 1024},
            "hardware": {"gpu": RTX_4090, "ram_gb": 64}}  # fmt: skip

    assert _post(body).status_code == 200
    settings.SIMULATE_MAX_COST_UNITS = 32 * 33 - 1  # one block: 1 × 33 splits × 32 layers
    refused = _post({**body, "workload": {**body["workload"], "seq_len": 512}})
    assert refused.status_code == 400
    assert "33 splits × 32 layers" in refused.json()["errors"]["request"]
