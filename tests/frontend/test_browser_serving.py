"""The serving pages in a real browser: the inference ranking's table and chart, a budget
change and a sort by decode speed without a reload; a row's serving build page with its
charts; serving on the Simulate page."""

import json
import re

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.frontend.browser import (
    ConsoleWatch,
    chart_layout_problems,
    chart_points,
    page_overflow,
    screenshots,
    wait_for_chart,
)
from tests.frontend.conftest import ranking_compute
from tests.frontend.test_serving import FLASH
from tests.frontend.test_serving_custom_model import CONFIG

pytestmark = pytest.mark.usefixtures("catalog_committed")


def _numbers(page: Page, column: int) -> list[float]:
    cells = page.locator(f"table.serving tbody tr td:nth-child({column})").all_inner_texts()
    return [float(re.sub(r"[^0-9.]", "", cell.split(" ")[0])) for cell in cells]


def test_the_serving_page_filters_and_sorts_an_inference_ranking(
    live_server: LiveServer, page: Page
) -> None:
    ranking_compute(FLASH)
    page.goto(f"{live_server.url}/serve/")
    wait_for_chart(page, "serving-chart")
    all_points = chart_points(page, "serving-chart")
    assert all_points > 10
    expect(page.locator("table.serving thead")).to_contain_text("Largest context")
    screenshots(page, "serving")

    page.get_by_label("Budget (USD)").fill("3000")
    page.get_by_label("Budget (USD)").dispatch_event("change")

    expect(page).to_have_url(re.compile(r"budget=3000"))
    wait_for_chart(page, "serving-chart")
    assert 0 < chart_points(page, "serving-chart") < all_points
    assert all(price <= 3000 for price in _numbers(page, 3))

    page.get_by_role("link", name="Decode tokens/s", exact=True).click()

    expect(page).to_have_url(re.compile(r"sort=decode_tokens_per_s"))
    speeds = _numbers(page, 4)
    assert speeds == sorted(speeds, reverse=True)
    screenshots(page, "serving-sorted")


def test_a_serving_row_opens_its_build_page_with_the_charts_and_the_rows_speed(
    live_server: LiveServer, page: Page
) -> None:
    ranking_compute(FLASH)
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/serve/")
    first = page.locator("table.serving tbody tr").first
    decode = first.locator("td:nth-child(4)").inner_text().split(" ")[0]
    # The placement in words; for a MoE kept all on the GPU, the experts-in-RAM figure below.
    placement, *forced = first.locator("td:nth-child(8)").inner_text().splitlines()

    first.locator("td:nth-child(2) a").click()

    expect(page).to_have_url(re.compile(r"/builds/candidate/serve/\?parts=.*context=32768"))
    for canvas in ("placement-chart", "kv-chart", "depth-chart", "batch-chart"):
        wait_for_chart(page, canvas)
    expect(page.locator("#decode-speed")).to_have_text(decode)
    expect(page.locator("#placement-words h2")).to_have_text(f"Placement: {placement}")
    if forced:  # the row's figure is the one its build page shows beside the headline
        figure = forced[0].split(":")[1].split(" tokens/s")[0].strip()
        expect(page.locator("#experts-in-ram strong")).to_have_text(f"{figure} decode tokens/s")
    expect(page.locator("#serving-workload")).to_contain_text("glm-4.7-flash in Q4_K_M")
    assert chart_points(page, "depth-chart") >= 8
    # One bar per place the model uses (VRAM here, or VRAM and CPU RAM), then the disk.
    assert chart_points(page, "placement-chart") in (2, 3)
    assert chart_layout_problems(page) == []
    screenshots(page, "serving-build")
    assert page_overflow(page) is None
    assert watch.problems() == []


def test_serving_on_the_simulate_page_redraws_on_a_change(
    live_server: LiveServer, page: Page
) -> None:
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/simulate/serve/")
    wait_for_chart(page, "depth-chart")
    before = page.locator("#decode-speed").inner_text()

    page.locator("#id_gpu").select_option("RTX 5090")

    expect(page).to_have_url(re.compile(r"gpu=RTX(%20|\+)5090"))
    expect(page.locator("#decode-speed")).not_to_have_text(before)
    wait_for_chart(page, "depth-chart")
    screenshots(page, "serving-simulate")
    assert watch.problems() == []


def test_a_whole_system_chosen_on_the_simulate_page_replaces_the_pcs_gpu_and_cpu(
    live_server: LiveServer, page: Page
) -> None:
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/simulate/serve/")
    wait_for_chart(page, "depth-chart")

    page.locator("#id_unified").select_option("Mac Studio M3 Ultra 512GB")

    expect(page).to_have_url(re.compile(r"unified=Mac"))
    expect(page.locator("#serving-workload")).to_contain_text("on Mac Studio M3 Ultra 512GB.")
    expect(page.locator("#serving-workload")).not_to_contain_text("RAM")
    assert page.locator("#id_gpu").input_value() == ""
    assert page.locator("#id_cpu").input_value() == ""

    # and back: a GPU chosen makes the machine a PC again
    page.locator("#id_gpu").select_option("RTX 5090")
    expect(page).to_have_url(re.compile(r"gpu=RTX(%20|\+)5090"))
    expect(page.locator("#serving-workload")).to_contain_text("RTX 5090")
    expect(page.locator("#serving-workload")).not_to_contain_text("Mac Studio")
    assert page.locator("#id_unified").input_value() == ""
    assert watch.problems() == []


def test_a_url_that_mixes_a_whole_system_with_a_gpu_is_answered_with_the_field_named(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(
        f"{live_server.url}/simulate/serve/?gpu=RTX+4090&cpu=EPYC+9124"
        "&unified=Mac+Studio+M3+Ultra+512GB"
    )
    # the engine's refusal, on the whole-system field, its API paths named by their labels
    expect(page.locator("#serving-report")).to_contain_text(
        "is a whole system, its own GPU and CPU: give it without “GPU” or “CPU”"
    )


def test_a_config_json_pasted_on_the_serving_simulate_page_is_served_at_its_own_address(
    live_server: LiveServer, page: Page
) -> None:
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/simulate/serve/")
    wait_for_chart(page, "depth-chart")
    box = page.locator("#own-model")
    box.get_by_text("Your model: paste or upload").click()
    box.get_by_label("Model name").fill("My Flash")
    box.get_by_label("config.json").fill(json.dumps(CONFIG, indent=2))

    box.get_by_role("button", name="Use this model").click()

    expect(page).to_have_url(re.compile(r"/simulate/serve/\?.*model=custom%3A[0-9a-f]{16}"))
    model = page.locator("#serving-report #id_model")
    expect(model).to_have_value(re.compile(r"^custom:[0-9a-f]{16}$"))
    expect(model.locator("option:checked")).to_have_text("My Flash (yours)")
    expect(page.locator("#serving-workload")).to_contain_text("My Flash in Q4_K_M")
    expect(page.locator("#decode-speed")).to_have_text(re.compile(r"^[\d,]+\.\d$"))
    for canvas in ("placement-chart", "kv-chart", "depth-chart", "batch-chart"):
        wait_for_chart(page, canvas)
    screenshots(page, "serving-simulate-own-model")
    assert watch.problems() == []


def test_a_serving_run_on_the_simulate_page_answers_a_rate_and_flags_saturation(
    live_server: LiveServer, page: Page
) -> None:
    """The run's fields sit in their own fold; a rate the slots keep up with fills some of
    them, and raising it past what they complete redraws the run as saturated, no reload."""
    watch = ConsoleWatch(page)
    query = ("gpu=RTX+3090&gpu_count=1&cpu=EPYC+9124&ram_gb=128&model=glm-4.7-flash"
             "&quant=Q4_K_M&context=1200&placement=gpu&batch=16&prompt_tokens=1000"
             "&output_tokens=200&requests=100&request_rate_per_s=0.5")  # fmt: skip
    page.goto(f"{live_server.url}/simulate/serve/?{query}")
    run = page.locator("#serving-run")
    expect(run).to_contain_text("of 16 slots")
    expect(page.locator("#serving-run-saturated")).to_have_count(0)
    assert page.locator("details.serving-run-fields").get_attribute("open") is not None
    calm = int(page.locator("#serving-run-concurrency").inner_text())
    assert 1 <= calm < 16

    page.locator("#id_request_rate_per_s").fill("1000")
    page.locator("#id_request_rate_per_s").dispatch_event("change")

    expect(page).to_have_url(re.compile(r"request_rate_per_s=1000"))
    expect(page.locator("#serving-run-saturated")).to_be_visible()
    expect(page.locator("#serving-run-concurrency")).to_have_text("16")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(300)  # Chart.js redraws its canvases on resize
        assert page_overflow(page) is None
    screenshots(page, "serving-run")
    assert watch.problems() == []
