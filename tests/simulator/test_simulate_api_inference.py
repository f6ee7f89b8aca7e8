"""POST /api/simulate with an inference workload: inline hardware, a catalog build in its
best placement with $ per (decode tokens/s), and a whole Apple system."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from catalog.models import Build, Part
from simulator.engine.devices import Gpu, require_device

FLASH = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768}
RTX_4090 = {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22}


def _post(body: object) -> Any:
    return APIClient().post("/api/simulate", body, format="json")


@pytest.mark.django_db
def test_inline_inference_hardware_answers_200_with_prefill_and_decode() -> None:
    gpu = {**RTX_4090, "mem_gbps": require_device(Gpu, "RTX 4090", field="gpu").mem_bandwidth_gbps}
    response = _post({"workload": {**FLASH, "placement": "gpu"}, "hardware": {"gpu": gpu}})

    assert response.status_code == 200, response.json()
    result = response.json()["result"]
    assert result["kind"] == "infer"
    assert result["placement"] == "gpu"
    assert result["decode_tokens_per_s"] > 0
    assert result["prefill_tokens_per_s"] > result["decode_tokens_per_s"]
    assert result["max_context"] >= FLASH["context"]


@pytest.mark.django_db
def test_an_inference_field_error_names_its_field() -> None:
    response = _post({"workload": {**FLASH, "context": -1}, "hardware": {"gpu": RTX_4090}})

    assert response.status_code == 400
    assert "workload.context" in response.json()["errors"]


@pytest.mark.django_db
def test_a_catalog_build_serves_in_its_fastest_placement_with_usd_per_decode_speed(
    catalog: None,
) -> None:
    build = Build.objects.get(slug="seed-a-budget-single-gpu")  # one RTX 4090, 32 GB RAM

    response = _post({"workload": FLASH, "build_id": build.pk})

    assert response.status_code == 200, response.json()
    body = response.json()
    result = body["result"]
    tried = result["placements_tried"]
    assert set(tried) == {"gpu", "hybrid", "cpu"}
    speeds = {name: speed for name, speed in tried.items() if isinstance(speed, float)}
    assert result["placement"] == max(speeds, key=lambda name: speeds[name])
    assert result["decode_tokens_per_s"] == pytest.approx(max(speeds.values()))
    summary = result["build"]
    assert summary["price_usd"] == 2700
    assert summary["usd_per_decode_tokens_per_s"] == pytest.approx(
        2700 / result["decode_tokens_per_s"]
    )
    assert body["input"]["workload"]["placement"] == result["placement"]


@pytest.mark.django_db
def test_a_named_placement_is_kept_for_a_catalog_build(catalog: None) -> None:
    build = Build.objects.get(slug="seed-a-budget-single-gpu")

    response = _post({"workload": {**FLASH, "placement": "cpu"}, "build_id": build.pk})

    assert response.status_code == 200, response.json()
    assert response.json()["result"]["placement"] == "cpu"


@pytest.mark.django_db
def test_an_apple_system_is_a_build_of_one_part_in_unified_memory(catalog: None) -> None:
    mac = Part.objects.get(name="Mac Studio M4 Max 128GB")

    response = _post({"workload": FLASH, "parts": [{"part_id": mac.pk, "quantity": 1}]})

    assert response.status_code == 200, response.json()
    result = response.json()["result"]
    assert result["placement"] == "unified"
    assert result["hardware"]["unified"]["mem_gbps"] == 546.0
    assert result["build"]["usd_per_decode_tokens_per_s"] == pytest.approx(
        result["build"]["price_usd"] / result["decode_tokens_per_s"]
    )


@pytest.mark.django_db
def test_a_model_that_fits_nowhere_on_the_build_is_a_400(catalog: None) -> None:
    build = Build.objects.get(slug="seed-a-budget-single-gpu")
    workload = {**FLASH, "model": "glm-4.7", "context": 131072}  # 355 B: not in 24 + 32 GB

    response = _post({"workload": workload, "build_id": build.pk})

    assert response.status_code == 400
    assert "no placement runs here" in response.json()["errors"]["workload.placement"]


@pytest.mark.django_db
def test_a_prompt_at_depth_is_slower_and_echoed_in_the_workload() -> None:
    gpu = {**RTX_4090, "mem_gbps": require_device(Gpu, "RTX 4090", field="gpu").mem_bandwidth_gbps}
    flash = {**FLASH, "placement": "gpu", "prompt_tokens": 2048}

    def prefill(depth: int) -> tuple[float, dict[str, Any]]:
        workload = {**flash, "prefill_depth_tokens": depth} if depth else flash
        response = _post({"workload": workload, "hardware": {"gpu": gpu}})
        assert response.status_code == 200, response.json()
        result = response.json()["result"]
        return result["prefill_tokens_per_s"], result["workload"]

    at_zero, echoed_zero = prefill(0)
    at_depth, echoed = prefill(16384)
    assert at_depth < at_zero
    assert echoed["prefill_depth_tokens"] == 16384
    assert "prefill_depth_tokens" not in echoed_zero


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [-1, 1.5, "10", 10**9])
def test_a_bad_prefill_depth_is_a_400_naming_it(depth: object) -> None:
    workload = {**FLASH, "placement": "gpu", "prefill_depth_tokens": depth}
    response = _post({"workload": workload, "hardware": {"gpu": RTX_4090}})
    assert response.status_code == 400
    assert "workload.prefill_depth_tokens" in response.json()["errors"]


GLM5_LONG = {"kind": "infer", "model": "glm-5", "quant": "FP8", "placement": "gpu",
             "context": 65536, "runtime": "sglang", "tensor_parallel": 8}  # fmt: skip
H200 = {"name": "H200", "vram_gb": 141, "bf16_tflops": 989, "pcie_gbps": 50, "mem_gbps": 4800}


@pytest.mark.django_db
def test_a_sparse_runtimes_dense_fallback_is_asked_for_and_echoed() -> None:
    """GLM-5 under SGLang reads only its indexer's top-k cached tokens; with
    `sparse_attention: false` (the dense fallback) it reads every one, slower at 64k."""

    def decode(extra: dict[str, object]) -> tuple[float, dict[str, Any]]:
        workload = {**GLM5_LONG, **extra}
        response = _post({"workload": workload, "hardware": {"gpu": H200, "gpu_count": 8}})
        assert response.status_code == 200, response.json()
        result = response.json()["result"]
        return result["decode_tokens_per_s"], result["workload"]

    sparse, echoed_default = decode({})
    dense, echoed = decode({"sparse_attention": False})
    assert dense < sparse
    assert echoed["sparse_attention"] is False
    assert "sparse_attention" not in echoed_default


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["no", 0, 1])
def test_a_sparse_attention_flag_that_is_not_a_boolean_is_a_400_naming_it(value: object) -> None:
    workload = {**GLM5_LONG, "sparse_attention": value}
    response = _post({"workload": workload, "hardware": {"gpu": H200, "gpu_count": 8}})
    assert response.status_code == 400
    assert "workload.sparse_attention" in response.json()["errors"]


STRIX_PAIR = {"unified": "framework-desktop-ryzen-ai-max-395-128gb", "machines": 2}
GPT_OSS_UNIFIED = {"kind": "infer", "model": "gpt-oss-120b", "quant": "MXFP4",
                   "placement": "unified", "runtime": "llama.cpp-vulkan"}  # fmt: skip


@pytest.mark.django_db
def test_two_machines_over_a_network_are_simulated_and_echoed() -> None:
    """llama.cpp RPC over two Strix Halo systems on 10 GbE: the step's network share is
    reported, and the hardware echoes both fields."""
    hardware = {**STRIX_PAIR, "network_gbit_per_s": 10}
    response = _post({"workload": GPT_OSS_UNIFIED, "hardware": hardware})
    assert response.status_code == 200, response.json()
    result = response.json()["result"]
    assert result["hardware"]["machines"] == 2
    assert result["hardware"]["network_gbit_per_s"] == 10.0
    assert result["decode"]["network_s"] > 0
    one = _post({"workload": GPT_OSS_UNIFIED, "hardware": {"unified": STRIX_PAIR["unified"]}})
    assert one.status_code == 200, one.json()
    assert "machines" not in one.json()["result"]["hardware"]
    assert one.json()["result"]["decode"]["network_s"] == 0.0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("hardware", "field"),
    [
        (STRIX_PAIR, "hardware.network_gbit_per_s"),
        ({**STRIX_PAIR, "machines": "two", "network_gbit_per_s": 10}, "hardware.machines"),
        ({**STRIX_PAIR, "network_gbit_per_s": -1}, "hardware.network_gbit_per_s"),
    ],
)
def test_a_bad_machine_count_or_network_is_a_400_naming_it(
    hardware: dict[str, Any], field: str
) -> None:
    response = _post({"workload": GPT_OSS_UNIFIED, "hardware": hardware})
    assert response.status_code == 400
    assert field in response.json()["errors"]


@pytest.mark.django_db
def test_whole_layers_in_host_ram_answer_with_what_sits_where() -> None:
    """Llama 3.1 70B Q4_K_M does not fit an RTX 3090; with 40 of its 80 layers on the card the
    API answers with each location's weights and share of the cache, and echoes the split;
    without the CPU that holds the other layers it names the missing part."""
    workload = {"kind": "infer", "model": "llama-3.1-70b", "quant": "Q4_K_M"}
    hardware = {"gpu": "RTX 3090", "cpu": "Ryzen 9 7950X", "ram_gb": 64}
    whole = _post({"workload": workload, "hardware": hardware})
    assert whole.status_code == 400
    assert "hardware.gpu.vram_gb" in whole.json()["errors"]

    split = _post({"workload": {**workload, "gpu_layers": 40}, "hardware": hardware})
    assert split.status_code == 200, split.content[:300]
    result = split.json()["result"]
    assert result["workload"]["gpu_layers"] == 40
    assert result["cpu_layers"] == 40
    assert set(result["weights_gb"]) == {"gpu", "cpu"}
    kv = result["kv_cache_gb_by_location"]
    assert kv["gpu"] == pytest.approx(kv["cpu"])
    assert kv["gpu"] + kv["cpu"] == pytest.approx(result["kv_cache_gb"])
    assert 0 < result["decode_tokens_per_s"] < 10

    no_cpu = _post(
        {"workload": {**workload, "gpu_layers": 40}, "hardware": {"gpu": "RTX 3090", "ram_gb": 64}}
    )
    assert no_cpu.status_code == 400
    assert "hardware.cpu" in no_cpu.json()["errors"]


LLAMA_8B_RUN = {
    "kind": "infer", "model": "llama-3.1-8b", "quant": "BF16", "runtime": "vllm",
    "context": 1200, "prompt_tokens": 1000, "output_tokens": 200, "batch": 256,
}  # fmt: skip
H100 = {"gpu": {"name": "H100 SXM"}, "gpu_count": 1}


@pytest.mark.django_db
def test_a_serving_run_at_a_rate_keeps_littles_law_and_is_echoed() -> None:
    """500 requests at 5 a second: the requests in flight c complete c / latency ≥ 5 a
    second (one fewer would not), and the run lasts the arrivals' 100 s and the last one."""
    slow = _post({"workload": {**LLAMA_8B_RUN, "request_rate_per_s": 5, "requests": 500},
                  "hardware": H100})  # fmt: skip
    assert slow.status_code == 200, slow.json()
    result = slow.json()["result"]
    assert result["workload"]["request_rate_per_s"] == 5.0
    assert result["workload"]["requests"] == 500
    run = result["serving_run"]
    assert not run["saturated"]
    assert 1 < run["concurrency"] < 256
    assert run["concurrency"] / run["request_latency_s"] >= 5.0
    assert run["duration_s"] == pytest.approx(500 / 5 + run["request_latency_s"])
    assert run["output_tokens_per_s"] == pytest.approx(500 * 200 / run["duration_s"])
    assert run["total_tokens_per_s"] == pytest.approx(500 * 1200 / run["duration_s"])

    flood = _post({"workload": {**LLAMA_8B_RUN, "request_rate_per_s": 1000, "requests": 500},
                   "hardware": H100})  # fmt: skip
    full = flood.json()["result"]["serving_run"]
    assert full["saturated"]
    assert full["concurrency"] == 256
    assert full["output_tokens_per_s"] > run["output_tokens_per_s"]
    assert full["request_latency_s"] > run["request_latency_s"]

    plain = _post({"workload": {**FLASH, "placement": "gpu"}, "hardware": H100})
    assert plain.json()["result"]["serving_run"] is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [({"output_tokens": None, "request_rate_per_s": 2}, "workload.request_rate_per_s"),
     ({"request_rate_per_s": 0}, "workload.request_rate_per_s"),
     ({"request_rate_per_s": "fast"}, "workload.request_rate_per_s"),
     ({"requests": 0}, "workload.requests"),
     ({"context": 1100}, "workload.context")],
)  # fmt: skip
def test_a_bad_serving_run_is_a_400_naming_its_field(change: dict[str, object], field: str) -> None:
    merged = {**LLAMA_8B_RUN, **change}
    workload = {key: value for key, value in merged.items() if value is not None}
    response = _post({"workload": workload, "hardware": H100})
    assert response.status_code == 400, response.json()
    assert field in response.json()["errors"]
