"""POST /api/simulate for single builds: inline hardware and catalog builds answer 200."""

import time
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from catalog.models import Build
from simulator.concurrency import BUSY_RETRY_AFTER_S, simulate_slot
from simulator.models import SimulationRun

SEED_TOKENS = 50_000_000
RTX_4090 = {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22, "fp4": False}


def _workload(quant: str = "NF4d+NF2e", **overrides: Any) -> dict[str, Any]:
    workload = {
        "kind": "train",
        "model": "glm-4.7",
        "quant": quant,
        "seq_len": 1024,
        "lora_rank": 64,
        "tokens": SEED_TOKENS,
        "mode": "reference",
        "utilization": 0.70,
    }
    return {**workload, **overrides}


def _inline(**workload_overrides: Any) -> dict[str, Any]:
    return {
        "workload": _workload(**workload_overrides),
        "hardware": {
            "gpu": RTX_4090,
            "gpu_count": 1,
            "nvme_gbps": 7,
            "ram_gb": 32,
            "pinned_gb": 26,
        },
    }


def _post(body: object) -> Any:
    return APIClient().post("/api/simulate", body, format="json")


@pytest.mark.django_db
def test_inline_hardware_answers_200_with_the_engines_full_result() -> None:
    response = _post(_inline())

    assert response.status_code == 200
    result = response.json()["result"]
    assert result["best"]["tokens_per_s"] == pytest.approx(277, rel=0.01)  # seed 000, 1x 4090
    assert result["greedy"]["micro_batch"] == 3  # seed 000: the greedy split, Res=8 B=3
    # one row per resident count that fits: 0 up to the greedy 8 (seed 000's curve)
    assert [row["resident_layers"] for row in result["curve"]] == list(range(9))
    assert result["hours_for_tokens"] == pytest.approx(SEED_TOKENS / 277 / 3600, rel=0.01)


@pytest.mark.django_db
def test_an_identical_request_returns_the_stored_run() -> None:
    first = _post(_inline()).json()
    second = _post(_inline()).json()

    assert second["id"] == first["id"]
    assert SimulationRun.objects.count() == 1


SEED_BUILD_TABLE = [
    # seed 000 "Value comparison": build, quant, cost (real part sums), tok/s, hours for 50 M
    ("Build A", "NF4d+NF2e", 2700, 277, 50),
    ("Build B", "NF4d+NF2e", 5000, 443, 31),
    ("Build C", "NF4d+NF2e", 4195, 351, 40),
    ("Build C", "NVFP4", 4195, 961, 14),
    ("Build D", "NF4d+NF2e", 7605, 561, 25),
    ("Build D", "NVFP4", 7605, 1538, 9),
]


@pytest.mark.parametrize(("name", "quant", "cost_usd", "tokens_per_s", "hours"), SEED_BUILD_TABLE)
def test_catalog_seed_builds_reproduce_the_seed_build_table(
    catalog: None, name: str, quant: str, cost_usd: int, tokens_per_s: int, hours: int
) -> None:
    build = Build.objects.get(name__startswith=name + ":")

    response = _post({"workload": _workload(quant), "build_id": build.pk})

    assert response.status_code == 200
    result = response.json()["result"]
    assert result["build"]["price_usd"] == cost_usd
    assert result["best"]["tokens_per_s"] == pytest.approx(tokens_per_s, rel=0.01)
    assert result["build"]["usd_per_tokens_per_s"] == pytest.approx(
        cost_usd / tokens_per_s, rel=0.01
    )
    assert result["hours_for_tokens"] == pytest.approx(hours, abs=0.6)
    assert all(part["price_observed_on"] for part in result["build"]["parts"])


def test_build_a_costs_9_75_dollars_per_token_per_second(catalog: None) -> None:
    build = Build.objects.get(name__startswith="Build A:")

    result = _post({"workload": _workload(), "build_id": build.pk}).json()["result"]

    assert round(result["build"]["usd_per_tokens_per_s"], 2) == 9.75  # seed 000, Build A


def test_a_list_of_catalog_parts_is_simulated_like_a_build(catalog: None) -> None:
    build = Build.objects.get(name__startswith="Build A:")
    parts = [{"part_id": line.part_id, "quantity": line.quantity} for line in build.lines.all()]

    response = _post({"workload": _workload(), "parts": parts})

    assert response.status_code == 200
    result = response.json()["result"]
    assert result["build"]["price_usd"] == 2700
    assert result["best"]["tokens_per_s"] == pytest.approx(277, rel=0.01)


@pytest.mark.django_db
def test_a_bad_field_is_a_400_naming_the_field() -> None:
    response = _post(_inline(seq_len=-5))

    assert response.status_code == 400
    assert "workload.seq_len" in response.json()["errors"]
    assert SimulationRun.objects.count() == 0


def test_nvfp4_on_a_gpu_without_fp4_cores_is_explained(catalog: None) -> None:
    build = Build.objects.get(name__startswith="Build A:")

    response = _post({"workload": _workload("NVFP4"), "build_id": build.pk})

    assert response.status_code == 400
    assert "FP4" in response.json()["errors"]["workload.quant"]


@pytest.mark.django_db
def test_an_unknown_build_id_is_a_404() -> None:
    response = _post({"workload": _workload(), "build_id": 999_999})

    assert response.status_code == 404
    assert "999999" in response.json()["detail"]


@pytest.mark.django_db
def test_an_oversized_body_is_a_json_413(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    body = {**_inline(), "padding": "x" * 4096}

    response = _post(body)

    assert response.status_code == 413
    assert "too large" in response.json()["detail"]


@pytest.mark.django_db
def test_nan_is_not_accepted_as_a_number() -> None:
    raw = '{"workload": {"kind": "train", "model": "glm-4.7", "seq_len": NaN}}'

    response = APIClient().post("/api/simulate", raw, content_type="application/json")

    assert response.status_code == 400


@pytest.mark.django_db
def test_two_request_forms_at_once_are_refused() -> None:
    body = {**_inline(), "build_id": 1}

    response = _post(body)

    assert response.status_code == 400
    assert "request" in response.json()["errors"]


@pytest.mark.django_db
def test_anonymous_clients_are_throttled_with_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.cache import cache

    from simulator.throttles import SimulateAnonThrottle

    cache.clear()
    monkeypatch.setitem(SimulateAnonThrottle.THROTTLE_RATES, "simulate_anon", "2/min")
    statuses = [_post(_inline()).status_code for _ in range(3)]
    throttled = _post(_inline())

    assert statuses[:2] == [200, 200]
    assert throttled.status_code == 429
    assert int(throttled["Retry-After"]) > 0


@pytest.mark.django_db
def test_rotating_x_forwarded_for_does_not_dodge_the_throttle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.core.cache import cache

    from simulator.throttles import SimulateAnonThrottle

    cache.clear()
    monkeypatch.setitem(SimulateAnonThrottle.THROTTLE_RATES, "simulate_anon", "2/min")
    client = APIClient()
    statuses = [
        client.post(
            "/api/simulate", _inline(), format="json", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}"
        ).status_code
        for i in range(3)
    ]

    assert statuses == [200, 200, 429]


def test_a_full_ranking_queue_answers_429_with_retry_after(catalog: None, settings: Any) -> None:
    settings.RANKING_QUEUE_MAX = 1
    first = _post({"workload": _workload(), "ranking": {"gpu_count_max": 1}})

    second = _post({"workload": _workload(), "ranking": {"gpu_count_max": 2}})
    again = _post({"workload": _workload(), "ranking": {"gpu_count_max": 1}})

    assert first.status_code == 202
    assert second.status_code == 429
    assert int(second["Retry-After"]) > 0
    assert "waiting" in second.json()["detail"]
    assert again.status_code == 202  # the same request still finds its queued run
    assert SimulationRun.objects.filter(kind="ranking").count() == 1


@pytest.mark.django_db
def test_with_every_simulate_slot_taken_a_request_waits_then_gets_503(settings: Any) -> None:
    """The bulkhead of simulator/concurrency.py: this process's only slot is held (as by a
    request in another thread), so a request waits SIMULATE_SLOT_WAIT_S and is turned away
    with Retry-After, storing nothing; once the slot is free the same request runs."""
    settings.SIMULATE_CONCURRENCY = 1
    settings.SIMULATE_SLOT_WAIT_S = 0.2

    with simulate_slot():
        started = time.monotonic()
        busy = _post(_inline())
        waited_s = time.monotonic() - started
    after = _post(_inline())

    assert busy.status_code == 503
    assert busy["Retry-After"] == str(BUSY_RETRY_AFTER_S)
    assert "busy" in busy.json()["detail"]
    assert waited_s >= 0.2
    assert after.status_code == 200
    assert SimulationRun.objects.count() == 1


@pytest.mark.django_db
def test_a_refused_request_gives_its_simulate_slot_back(settings: Any) -> None:
    settings.SIMULATE_CONCURRENCY = 1
    settings.SIMULATE_SLOT_WAIT_S = 0.05

    refused = _post(_inline(seq_len=-1))
    accepted = _post(_inline())

    assert (refused.status_code, accepted.status_code) == (400, 200)


def _part_reads(queries: list[dict[str, Any]]) -> int:
    return sum('"catalog_part"' in query["sql"] for query in queries)


@pytest.mark.django_db
def test_a_builds_parts_are_read_in_one_query_not_one_a_part(catalog: None) -> None:
    """Each part's kind-specific row (GPU, CPU, ...) comes joined with its line; reading them
    one by one was a third of a single-build request's time (docs/benchmarks.md, Load)."""
    build = Build.objects.get(name__startswith="Build A:")
    parts = [{"part_id": line.part_id, "quantity": line.quantity} for line in build.lines.all()]

    with CaptureQueriesContext(connection) as by_build:
        assert _post({"workload": _workload(), "build_id": build.pk}).status_code == 200
    with CaptureQueriesContext(connection) as by_parts:
        assert _post({"workload": _workload(tokens=1), "parts": parts}).status_code == 200

    assert len(parts) >= 6
    assert _part_reads(by_build.captured_queries) == 1
    assert _part_reads(by_parts.captured_queries) == 1


@pytest.mark.django_db
def test_an_unknown_part_among_known_ones_is_a_404_naming_it(catalog: None) -> None:
    build = Build.objects.get(name__startswith="Build A:")
    parts = [{"part_id": line.part_id, "quantity": line.quantity} for line in build.lines.all()]

    response = _post({"workload": _workload(), "parts": [*parts, {"part_id": 999_999}]})

    assert response.status_code == 404
    assert "999999" in response.json()["detail"]
    assert not SimulationRun.objects.exists()


@pytest.mark.django_db
def test_fp8_training_answers_with_the_gpus_fp8_speedup() -> None:
    """Llama 3.1 8B LoRA on an H100 SXM, named: the device table supplies its FP8 peak
    (1,978.9 over 989.4 TFLOPS), so the compute-bound step runs faster than in BF16, by at
    most that ratio."""

    def tokens_per_s(quant: str) -> float:
        body = {
            "workload": {"kind": "train", "model": "llama-3.1-8b", "quant": quant,
                         "seq_len": 4096, "mode": "refined", "max_micro_batch": 1},
            "hardware": {"gpu": "H100 SXM", "gpu_count": 1, "ram_gb": 256},
        }  # fmt: skip
        response = _post(body)
        assert response.status_code == 200, response.content[:300]
        return float(response.json()["result"]["best"]["tokens_per_s"])

    bf16, fp8 = tokens_per_s("BF16"), tokens_per_s("FP8")
    assert bf16 < fp8 <= bf16 * 1402.6 / 794.5  # its matmuls' measured FP8 over BF16 rate


@pytest.mark.django_db
def test_a_gpus_sustained_matmul_rate_sets_refined_training_speed() -> None:
    """The H100 SXM named: its matmuls' measured 794.5 TFLOPS (the device table's, shown in
    the answer's hardware); the same card told it sustains its 989.4 peak trains faster, by
    at most the ratio; a negative rate is a 400 on its field."""

    def answer(gpu: object) -> Any:
        body = {
            "workload": {"kind": "train", "model": "llama-3.1-8b", "quant": "BF16",
                         "seq_len": 4096, "mode": "refined", "max_micro_batch": 1},
            "hardware": {"gpu": gpu, "gpu_count": 1, "ram_gb": 256},
        }  # fmt: skip
        return _post(body)

    measured = answer("H100 SXM")
    at_peak = answer({"name": "H100 SXM", "bf16_sustained_tflops": 989.4})
    assert (measured.status_code, at_peak.status_code) == (200, 200)
    speed = [float(r.json()["result"]["best"]["tokens_per_s"]) for r in (measured, at_peak)]
    assert speed[0] < speed[1] <= speed[0] * 989.4 / 794.5 * (1 + 1e-9)
    bad = answer({"name": "H100 SXM", "bf16_sustained_tflops": -5})
    assert bad.status_code == 400
    assert "hardware.gpu.bf16_sustained_tflops" in bad.json()["errors"]


@pytest.mark.django_db
def test_zero_2_fits_a_full_fine_tune_that_ddp_cannot() -> None:
    """Llama 3.1 8B fully fine-tuned on 8 A100s: replicated (DDP) it needs more than 80 GB a
    GPU, a 400 on the GPU's memory; with ZeRO-2's sharded gradients and optimizer state it
    answers."""

    def answer(parallelism: str) -> Any:
        body = {
            "workload": {"kind": "train", "model": "llama-3.1-8b", "quant": "BF16",
                         "seq_len": 2048, "mode": "refined", "full_finetune": True,
                         "parallelism": parallelism},
            "hardware": {"gpu": "A100 80GB SXM", "gpu_count": 8, "ram_gb": 512},
        }  # fmt: skip
        return _post(body)

    ddp, zero2 = answer("ddp"), answer("zero2")
    assert ddp.status_code == 400
    assert "cannot fit" in str(ddp.json()["errors"])
    assert zero2.status_code == 200, zero2.content[:300]
    assert float(zero2.json()["result"]["best"]["tokens_per_s"]) > 0


@pytest.mark.django_db
def test_a_full_fine_tune_offloaded_to_host_ram_answers_with_its_bottleneck() -> None:
    """Qwen2.5-3B fully fine-tuned does not fit a 24 GB card; with the optimizer offloaded to
    a Ryzen 9 7950X's RAM it does, and without the CPU the API names the missing field."""
    workload = {
        "kind": "train", "model": "qwen2.5-3b", "quant": "BF16", "full_finetune": True,
        "parallelism": "ddp", "mode": "refined", "seq_len": 1024, "max_micro_batch": 8,
    }  # fmt: skip
    hardware = {"gpu": "RTX 4090", "cpu": "Ryzen 9 7950X", "ram_gb": 128}
    on_gpu = _post({"workload": workload, "hardware": hardware})
    assert on_gpu.status_code == 400
    assert "hardware.gpu.vram_gb" in on_gpu.json()["errors"]

    offloaded = _post({"workload": {**workload, "offload": "optimizer"}, "hardware": hardware})
    assert offloaded.status_code == 200, offloaded.json()
    best = offloaded.json()["result"]["best"]
    assert best["micro_batch"] == 8
    assert best["tokens_per_s"] > 0

    no_cpu = {"gpu": "RTX 4090", "ram_gb": 128}
    refused = _post({"workload": {**workload, "offload": "optimizer"}, "hardware": no_cpu})
    assert refused.status_code == 400
    assert "hardware.cpu" in refused.json()["errors"]


@pytest.mark.django_db
def test_megatron_pipeline_stages_answer_with_their_fill_and_drain() -> None:
    """Llama 3.1 70B fully fine-tuned on 32 H100s: as 32 replicas it cannot fit; in 8 stages
    of 4 replicas it does, the answer shows the pipeline's fill and drain, and the stored
    request keeps the stages; a split the GPUs cannot hold names its field."""
    workload = {
        "kind": "train", "model": "llama-3.1-70b", "quant": "BF16", "full_finetune": True,
        "parallelism": "zero1", "mode": "refined", "seq_len": 4096, "max_micro_batch": 1,
        "micro_batches": 16,
    }  # fmt: skip
    hardware = {"gpu": "H100 SXM", "gpu_count": 32, "interconnect_gbps": 450}
    replicas = _post({"workload": workload, "hardware": hardware})
    assert replicas.status_code == 400
    assert "cannot fit" in str(replicas.json()["errors"])

    staged = _post(
        {
            "workload": {**workload, "pipeline_parallel": 8, "virtual_stages": 2},
            "hardware": hardware,
        }
    )
    assert staged.status_code == 200, staged.content[:300]
    body = staged.json()
    best = body["result"]["best"]
    assert best["bubble_s"] > 0
    assert best["tokens_per_s"] > 0
    assert body["result"]["workload"]["pipeline_parallel"] == 8
    assert body["result"]["workload"]["virtual_stages"] == 2

    uneven = _post({"workload": {**workload, "pipeline_parallel": 3}, "hardware": hardware})
    assert uneven.status_code == 400
    assert "workload.pipeline_parallel" in uneven.json()["errors"]
