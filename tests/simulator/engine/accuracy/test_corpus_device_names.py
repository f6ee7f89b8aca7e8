"""The corpus's spellings of its GPUs, CPUs and machines name device-table records, and every
record those spellings reach cites its datasheet."""

from typing import Any

import pytest

from simulator.engine.calibration.corpus import row_from_json
from simulator.engine.calibration.setups import InferSetup, row_setup
from simulator.engine.devices import Cpu, Gpu, System, require_device

# Corpus spelling -> the record it names (simulator/engine/data/measurements/*.json).
GPU_SPELLINGS = {
    "AMD Radeon AI PRO R9700 32GB (gfx1201, RDNA4)": "radeon-ai-pro-r9700",
    "AMD Radeon Instinct MI50 32GB (gfx906, 300W)": "radeon-instinct-mi50-32gb",
    "NVIDIA H100": "h100-sxm",
    "NVIDIA H100 (DGX-H100)": "h100-sxm",
    "NVIDIA H100 80GB SXM (DGX-H100)": "h100-sxm",
    "NVIDIA H200": "h200-sxm",
    "NVIDIA H200 SXM 141GB (DGX H200)": "h200-sxm",
    "AMD Instinct MI300X 192GB": "instinct-mi300x",
    "AMD Instinct MI300X OAM 192GB 750W": "instinct-mi300x",
    "AMD Radeon RX 9070 XT 16GB (gfx1201, RDNA4)": "radeon-rx-9070-xt",
    "AMD Radeon RX 7900 XT 20GB": "radeon-rx-7900-xt",
    "AMD Radeon RX 7900 XTX 24GB": "radeon-rx-7900-xtx",
    "NVIDIA GeForce RTX 3080": "rtx-3080",
    "NVIDIA GeForce RTX 4060 8GB": "rtx-4060",
    "NVIDIA GeForce RTX 4060 Ti 8GB": "rtx-4060-ti-8gb",
    "NVIDIA GeForce RTX 4060 Ti 16GB": "rtx-4060-ti-16gb",
    "NVIDIA GeForce RTX 4070 Ti SUPER": "rtx-4070-ti-super",
    "NVIDIA GeForce RTX 4080 SUPER 16GB": "rtx-4080-super",
    "Intel Arc B580 12GB": "arc-b580",
}
CPU_SPELLINGS = {
    "AMD Ryzen 9 7950X": "ryzen-9-7950x",
    "AMD Ryzen 9 7950X (Zen4)": "ryzen-9-7950x",
    "Intel Xeon w9-3475X (capped to 2.2 GHz fixed)": "xeon-w9-3475x",
    "AMD Ryzen Threadripper PRO 5975WX (32 Zen3 cores, AVX2)": "threadripper-pro-5975wx",
    "AMD Ryzen Threadripper 3970X 32-Core": "threadripper-3970x",
    "Intel Xeon 6980P": "xeon-6980p",
    "Intel Xeon Gold 6150 (host), 64GB DDR4": "xeon-gold-6150",
    "Intel Xeon Platinum 8480+": "xeon-platinum-8480-plus",
    "AMD EPYC 7443 (24C)": "epyc-7443",
    "AMD EPYC 9355 (NPS1)": "epyc-9355",
    "Intel Core i9-13900K": "core-i9-13900k",
    "i9-14900K, DDR5-6000": "core-i9-14900k",
    "AMD Ryzen 9 5950X 16-Core Processor": "ryzen-9-5950x",
    "AMD Ryzen Threadripper PRO 7995WX": "threadripper-pro-7995wx",
    "Intel Xeon Platinum 8592+": "xeon-platinum-8592-plus",
    "Ampere Altra Q80-30": "ampere-altra-q80-30",
}
SYSTEM_SPELLINGS = {
    "Apple M3 Ultra 80-core GPU 256GB": "apple-m3-ultra-80-core-gpu",
    "Apple M3 Ultra 60-core GPU 256GB (28 CPU cores)": "apple-m3-ultra-60-core-gpu",
    "Apple M3 Ultra 512GB": "mac-studio-m3-ultra-512gb",
    "Apple M1 Ultra Mac Studio 64-core GPU 128GB": "apple-m1-ultra-64-core-gpu",
    "Apple MacBook Air M2 10-core GPU 24GB": "apple-m2-10-core-gpu",
}


def _setup(hardware: dict[str, Any], engine: str = "llama.cpp CUDA") -> InferSetup:
    body = {
        "id": "T1", "category": "inference_gpu_dense", "engine": engine,
        "hardware": hardware, "model": "Llama 3.1 8B", "quant": "Q4_0",
        "workload": {"phase": "decode", "test": "tg128"}, "metric": "decode throughput",
        "value": 100.0, "unit": "tok/s", "source": {"url": "https://example.org/x"},
    }  # fmt: skip
    setup = row_setup(row_from_json(body, "rows[0]"))
    assert isinstance(setup, InferSetup)
    return setup


@pytest.mark.parametrize(("spelling", "slug"), GPU_SPELLINGS.items())
def test_a_corpus_gpu_spelling_names_its_record(spelling: str, slug: str) -> None:
    gpu = _setup({"gpu": spelling, "gpu_count": 1}).request.hardware.gpu
    assert gpu is not None
    assert gpu.name == require_device(Gpu, slug, field="x").name


@pytest.mark.parametrize(("spelling", "slug"), CPU_SPELLINGS.items())
def test_a_corpus_cpu_spelling_names_its_record(spelling: str, slug: str) -> None:
    cpu = _setup({"cpu": spelling, "sockets": 1}, engine="llama.cpp CPU").request.hardware.cpu
    assert cpu is not None
    assert cpu.name == f"1x {require_device(Cpu, slug, field='x').name}"


@pytest.mark.parametrize(("spelling", "slug"), SYSTEM_SPELLINGS.items())
def test_a_corpus_machine_spelling_names_its_record(spelling: str, slug: str) -> None:
    unified = _setup({"system": spelling}, engine="llama.cpp Metal").request.hardware.unified
    assert unified is not None
    assert unified.name == require_device(System, slug, field="x").name


def test_an_h200_nvl_is_not_taken_for_the_sxm_module() -> None:
    gpu = _setup({"gpu": "NVIDIA H200 NVL", "gpu_count": 1}).request.hardware.gpu
    assert gpu is not None
    assert gpu.name == require_device(Gpu, "h200-nvl", field="x").name


def test_a_plain_rtx_4080_is_not_taken_for_the_super() -> None:
    gpu = _setup({"gpu": "NVIDIA GeForce RTX 4080 16GB", "gpu_count": 1}).request.hardware.gpu
    assert gpu is not None
    assert gpu.name == require_device(Gpu, "rtx-4080", field="x").name


def test_two_sockets_of_a_cpu_name_its_one_socket_record_and_add_its_cores() -> None:
    hardware = {"cpu": "2x AMD EPYC 9115", "sockets": 2}
    cpu = _setup(hardware, engine="llama.cpp CPU (--numa distribute)").request.hardware.cpu
    assert cpu is not None
    epyc = require_device(Cpu, "epyc-9115", field="x")
    assert (cpu.name, cpu.cores) == (f"2x {epyc.name}", 2 * epyc.cores)


def test_a_pcie_h100_is_not_taken_for_the_sxm_module() -> None:
    gpu = _setup({"gpu": "NVIDIA H100 PCIe", "gpu_count": 1}).request.hardware.gpu
    assert gpu is not None
    assert gpu.name == require_device(Gpu, "h100-80g-pcie", field="x").name


# Every record added for the corpus and the 2026 market list, read on one day.
ADDED = {
    Gpu: (
        "instinct-mi300x", "radeon-instinct-mi50-32gb", "radeon-rx-9070-xt", "radeon-ai-pro-r9700",
        "radeon-rx-7900-xtx", "radeon-rx-7900-xt", "radeon-pro-w7900", "rtx-3080", "rtx-5070-ti",
        "rtx-pro-6000-blackwell-max-q", "rtx-4060-ti-8gb", "rtx-4060-ti-16gb", "rtx-4060",
        "rtx-4070-ti-super", "rtx-4080-super", "rtx-3060-12gb", "arc-b580", "instinct-mi100",
        "instinct-mi210", "rtx-pro-5000-blackwell", "rtx-pro-4500-blackwell", "h200-sxm",
    ),
    Cpu: (
        "ryzen-9-7950x", "threadripper-pro-5975wx", "threadripper-3970x", "xeon-w9-3475x",
        "epyc-9115", "xeon-6980p", "xeon-gold-6138", "xeon-gold-6150", "xeon-gold-6226r",
        "xeon-platinum-8468", "xeon-platinum-8470", "xeon-platinum-8480-plus", "epyc-7443",
        "epyc-9355",
    ),
    System: (
        "apple-m3-ultra-80-core-gpu", "apple-m3-ultra-60-core-gpu", "apple-m1-ultra-64-core-gpu",
        "apple-m2-10-core-gpu",
    ),
}  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "slug"), [(kind, slug) for kind, slugs in ADDED.items() for slug in slugs]
)
def test_each_added_record_cites_where_it_was_read_and_when(kind: type, slug: str) -> None:
    source = require_device(kind, slug, field="x").source
    # a page's URL, a repository at a commit, or a file of the search index by its id
    assert any(place in source for place in ("http", " @ ", "file id"))
    assert "read 2026-11-26" in source


# CPUs added 2026-12-06 from scrapes of the makers' specification pages (each cites its row).
ADDED_2026_12_06 = (
    "core-i9-14900k", "core-i9-13900k", "core-i7-12700k", "core-ultra-7-258v",
    "xeon-platinum-8592-plus", "xeon-gold-6430", "xeon-w9-3495x", "xeon-6972p", "ryzen-9-5950x",
    "ryzen-7-5800x3d", "threadripper-7980x", "threadripper-pro-7995wx", "ryzen-7-7840hs",
    "ampere-altra-max-m128-30",
)  # fmt: skip


@pytest.mark.parametrize("slug", ADDED_2026_12_06)
def test_each_cpu_added_cites_its_specification_page_and_when(slug: str) -> None:
    cpu = require_device(Cpu, slug, field="x")
    assert any(place in cpu.source for place in ("http", " @ "))
    assert "read 2026-12-06" in cpu.source
    # the peak the engine derives is the datasheet's cores × FP32 FLOPs per cycle × base clock
    assert cpu.cores * cpu.flops_per_core_cycle * cpu.all_core_ghz > 0
