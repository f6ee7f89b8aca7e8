"""The CPU time one simulate request may use: what the services estimate beyond the caller's
limit is refused before anything is computed or stored (400 naming `request`, with the
figures), and the engine's deadline stops what the estimate let through at the limit.

The estimate's seconds per step are checked against measured CPU time in
benchmarks/bench_request_cost.py, never here: these tests only use figures far from the
limits, or limits set to make the point."""

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from catalog.models import Build
from simulator.engine import WorkLimitError, cpu_limit, parse_request, simulate
from simulator.engine.model.registry import load_model
from simulator.models import SimulationRun
from simulator.services import cost
from tests.conftest import REPO_ROOT

GLM = {
    key: value
    for key, value in json.loads(
        (REPO_ROOT / "simulator/engine/data/models/glm-4.7.json").read_text()
    ).items()
    if not key.startswith("_")
}
GLM_LAYERS = load_model("glm-4.7").num_layers
BIG_GPU = {"name": "big", "vram_gb": 1000, "bf16_tflops": 165, "pcie_gbps": 22}
RTX_4090 = {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22}


def _deep(layers: int, gpu_count: int = 1, mode: str = "refined") -> dict[str, Any]:
    """GLM-4.7 stretched to `layers` layers, on GPUs large enough to hold a stage."""
    workload = {"kind": "train", "model": "deep", "quant": "NF4d+NF2e", "seq_len": 1024,
                "mode": mode, "model_config": {**GLM, "num_hidden_layers": layers}}  # fmt: skip
    hardware = {"gpu": BIG_GPU, "gpu_count": gpu_count, "nvme_gbps": 7, "ram_gb": 4096}
    return {"workload": workload, "hardware": hardware}


def _post(body: object, client: APIClient | None = None) -> Any:
    return (client or APIClient()).post("/api/simulate", body, format="json")


@pytest.fixture
def signed_in() -> APIClient:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("analyst"))
    return client


@pytest.mark.django_db
def test_an_anonymous_refined_simulation_of_1024_layers_on_one_gpu_is_refused() -> None:
    response = _post(_deep(1024))

    assert response.status_code == 400
    message = response.json()["errors"]["request"]
    # (S + 1) × S layer steps of the per-layer timeline, S = 1,024 layers on one GPU.
    assert "training (refined): 1,049,600 steps for 1024 layers per GPU" in message
    assert "s left of the 1 s it may use" in message
    assert "sign in" in message
    assert not SimulationRun.objects.exists()


@pytest.mark.django_db
def test_the_same_simulation_is_computed_for_a_signed_in_user(signed_in: APIClient) -> None:
    response = _post(_deep(1024), signed_in)

    assert response.status_code == 200
    assert response.json()["result"]["best"]["tokens_per_s"] > 0


@pytest.mark.django_db
def test_spread_over_eight_gpus_the_same_model_is_computed_anonymously() -> None:
    # 128 layers per GPU: (129 × 128) steps, a 64th of the work on one GPU.
    assert _post(_deep(1024, gpu_count=8)).status_code == 200


@pytest.mark.django_db
def test_reference_mode_costs_one_step_per_split() -> None:
    estimate = cost.simulation_single_cost(body=_deep(1024, mode="reference"))

    assert estimate.steps_per_build == 1025
    assert _post(_deep(1024, mode="reference")).status_code == 200


@pytest.mark.django_db
def test_an_estimate_that_falls_short_is_stopped_by_the_engine_at_the_limit(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    # A model that underestimates a hundredfold lets the request start: the engine's CPU
    # deadline is what stops it, and nothing is stored.
    short = {path: seconds / 100 for path, seconds in cost.SECONDS_PER_STEP.items()}
    monkeypatch.setattr(cost, "SECONDS_PER_STEP", short)
    settings.SIMULATE_ANON_CPU_S = 0.05

    response = _post(_deep(512))

    assert response.status_code == 400
    assert "ran past its limit of 0.05 s of CPU time" in response.json()["errors"]["request"]
    assert not SimulationRun.objects.exists()


def test_the_engine_checks_its_deadline_between_splits() -> None:
    request = parse_request(_deep(256))

    with pytest.raises(WorkLimitError) as refused, cpu_limit(0.0):
        simulate(request)

    assert refused.value.field == "request"
    assert simulate(request).best.tokens_per_s > 0  # outside a limit nothing is checked


def _ranking(**options: Any) -> dict[str, Any]:
    workload = {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024,
                "tokens": 50_000_000}  # fmt: skip
    return {"workload": workload, "ranking": options}


def test_a_whole_catalog_ranking_of_a_deep_refined_model_over_a_lowered_budget_is_refused(
    catalog: None, settings: Any
) -> None:
    settings.RANKING_MAX_CPU_S = 10.0
    deep = {**_deep(1024)["workload"], "tokens": 50_000_000}

    response = _post({"workload": deep, "ranking": {}})

    assert response.status_code == 400
    message = response.json()["errors"]["request"]
    assert "builds × 1,049,600 steps" in message
    assert "ranking.gpu_count_max" in message
    assert not SimulationRun.objects.exists()


def test_the_default_ranking_is_far_within_the_ranking_budget(catalog: None, settings: Any) -> None:
    settings.RANKING_MAX_CPU_S = 6.0  # a hundredth of the default limit
    assert _post(_ranking()).status_code == 202


def test_a_page_that_simulates_shares_the_cpu_limit(catalog: None, settings: Any) -> None:
    settings.SIMULATE_ANON_CPU_S = 0.001  # below any simulation's fixed cost
    slug = Build.objects.order_by("pk").values_list("slug", flat=True).first()

    page = Client().get(f"/builds/{slug}/")

    assert page.status_code == 200
    assert "s left of the 0.001 s it may use" in page.content.decode()
    assert not SimulationRun.objects.exists()


def test_glm_layers_are_costed_from_the_shipped_config() -> None:
    workload = {**_ranking()["workload"], "mode": "reference"}
    estimate = cost.simulation_ranking_cost(workload=workload, builds=10)

    assert estimate.layers_per_gpu == GLM_LAYERS
    assert estimate.steps_per_build == GLM_LAYERS + 1  # reference mode: one step a split
