"""The pages in a real browser (headless Chromium against the live server)."""

import re

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from simulator.engine.sustained import sustained_fractions
from tests.frontend.browser import chart_points, screenshots, swapped, wait_for_chart
from tests.frontend.conftest import GLM, ranking_compute

BUILD_A = "seed-a-budget-single-gpu"
SUSTAINED_PRIOR = sustained_fractions()[False]  # a what-if GPU's share of its peak
BUILD_C = "seed-c-single-rtx-5090"
pytestmark = pytest.mark.usefixtures("catalog_committed")


def test_changing_the_budget_updates_the_table_the_chart_and_the_address(
    live_server: LiveServer, page: Page
) -> None:
    ranking_compute(GLM)
    page.goto(live_server.url + "/")
    wait_for_chart(page, "scatter-chart")
    all_points = chart_points(page, "scatter-chart")
    first_rows = page.locator("table.ranking tbody tr td:nth-child(2)").all_inner_texts()
    screenshots(page, "home")

    page.get_by_label("Budget (USD)").fill("3000")
    page.get_by_label("Budget (USD)").dispatch_event("change")

    expect(page).to_have_url(re.compile(r"budget=3000"))
    wait_for_chart(page, "scatter-chart")
    assert 0 < chart_points(page, "scatter-chart") < all_points
    prices = page.locator("table.ranking tbody tr td:nth-child(3)").all_inner_texts()
    assert all(float(p.strip("$").replace(",", "")) <= 3000 for p in prices)
    rows = page.locator("table.ranking tbody tr td:nth-child(2)").all_inner_texts()
    assert rows != first_rows
    screenshots(page, "home-budget")


def test_a_power_limit_and_an_enclosure_narrow_the_table_and_the_chart(
    live_server: LiveServer, page: Page
) -> None:
    ranking_compute(GLM)
    page.goto(live_server.url + "/?include_estimates=on")
    wait_for_chart(page, "scatter-chart")
    all_points = chart_points(page, "scatter-chart")

    page.get_by_label("Power limit (W)").fill("1200")
    page.get_by_label("Power limit (W)").dispatch_event("change")
    expect(page).to_have_url(re.compile(r"power_w_max=1200"))
    page.get_by_label("Largest enclosure").select_option("mid_tower")

    expect(page).to_have_url(re.compile(r"case_size_max=mid_tower"))
    expect(page.locator("#rankings")).to_contain_text("Left out by your limits")
    wait_for_chart(page, "scatter-chart")
    assert 0 < chart_points(page, "scatter-chart") < all_points
    screenshots(page, "home-filters")


def test_a_build_page_draws_every_chart_and_explains_the_bottleneck(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(f"{live_server.url}/builds/{BUILD_A}/")

    for canvas in ("memory-chart", "steps-chart", "curve-chart", "timeline-chart"):
        wait_for_chart(page, canvas)
        assert chart_points(page, canvas) > 0, canvas
    expect(page.locator(".explain")).to_contain_text("Compute-bound")
    expect(page.get_by_role("cell", name="RTX 4090")).to_be_visible()
    expect(page.locator("table").first).to_contain_text("seed 000, from 2026-02")
    screenshots(page, "build-detail")


def test_comparing_two_builds_shows_them_side_by_side_with_differences_marked(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(f"{live_server.url}/compare/")
    page.get_by_label("Build A: Budget Single GPU").check()
    page.get_by_label("Build C: Single RTX 5090").check()

    page.get_by_role("button", name="Compare").click()

    table = page.locator("table.compare")
    expect(table).to_contain_text("Build A: Budget Single GPU")
    expect(table).to_contain_text("Build C: Single RTX 5090")
    expect(table.locator("tr.differs").first).to_be_visible()
    expect(page).to_have_url(re.compile(BUILD_C))
    screenshots(page, "compare")


def test_a_custom_gpu_simulates_live_and_a_bad_value_shows_its_field_error(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(f"{live_server.url}/simulate/")
    # Wait for each htmx swap: the form is replaced with the result, so typing into the
    # form before the swap would type into an element about to be replaced.
    with swapped(page, "#custom-sim"):
        page.get_by_role("button", name="Simulate").click()
    wait_for_chart(page, "curve-chart")
    speed = page.locator(".headline .big").first.inner_text()

    tflops = page.get_by_label("Dense BF16 TFLOPS")
    tflops.fill("400")
    with swapped(page, "#custom-sim"):
        tflops.dispatch_event("change")

    expect(page.locator(".headline .big").first).not_to_have_text(speed)
    wait_for_chart(page, "curve-chart")
    assert chart_points(page, "curve-chart") > 0
    screenshots(page, "simulate")

    seq_len = page.locator("#custom-sim").get_by_label("Sequence length (tokens)")
    seq_len.fill("0")
    seq_len.dispatch_event("change")

    expect(page.locator("#id_seq_len_error")).to_contain_text("must be a positive integer")
    expect(page.locator("#custom-output")).to_have_count(0)
    screenshots(page, "simulate-error")


def test_the_catalog_lists_parts_with_prices_and_a_part_shows_its_price_history(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(f"{live_server.url}/catalog/")
    expect(page.get_by_role("link", name="RTX 4090", exact=True)).to_be_visible()
    screenshots(page, "catalog")

    page.get_by_role("link", name="RTX 4090", exact=True).click()

    wait_for_chart(page, "price-chart")
    assert chart_points(page, "price-chart") > 0
    screenshots(page, "part-detail")


def test_the_api_page_links_the_docs_and_shows_a_curl_example(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(f"{live_server.url}/api-guide/")

    expect(page.get_by_role("link", name="/api/docs/")).to_be_visible()
    expect(page.locator("pre").first).to_contain_text("curl -s -X POST")
    screenshots(page, "api")
    page.goto(f"{live_server.url}/builds/")
    screenshots(page, "builds")


def test_fp8_training_needs_an_fp8_peak_and_then_runs_faster_than_bf16(
    live_server: LiveServer, page: Page
) -> None:
    """A what-if GPU without an FP8 figure is refused on the quantization field; with one,
    the simulation answers, faster than the same GPU in BF16."""
    page.goto(f"{live_server.url}/simulate/")
    form = page.locator("#custom-sim")
    quant = form.get_by_label("Quantization")
    with swapped(page, "#custom-sim"):
        quant.select_option("BF16")
    wait_for_chart(page, "curve-chart")
    bf16 = float(page.locator(".headline .big").first.inner_text().split()[0].replace(",", ""))

    with swapped(page, "#custom-sim"):
        form.get_by_label("Quantization").select_option("FP8")
    expect(page.locator("#id_quant_error")).to_contain_text("FP8 tensor cores")
    # the field to fill, named by its label on this page, not by the API's path
    expect(page.locator("#id_quant_error")).to_contain_text("“Dense FP8 TFLOPS”")
    expect(page.locator("#id_quant_error")).not_to_contain_text("hardware.gpu")
    screenshots(page, "simulate-fp8-refused")

    fp8 = form.get_by_label("Dense FP8 TFLOPS")
    fp8.fill("400")  # twice the what-if GPU's 200 BF16 TFLOPS
    with swapped(page, "#custom-sim"):
        fp8.dispatch_event("change")
    wait_for_chart(page, "curve-chart")
    speed = float(page.locator(".headline .big").first.inner_text().split()[0].replace(",", ""))
    assert bf16 < speed <= 2 * bf16
    screenshots(page, "simulate-fp8")


def test_a_measured_matmul_rate_sets_the_refined_training_speed(
    live_server: LiveServer, page: Page
) -> None:
    """The what-if GPU (200 BF16 TFLOPS, not in the device table) trains at the median
    measured share of the peak until its own sustained figure is given; a higher one runs
    faster, by at most the ratio of the two rates."""
    page.goto(f"{live_server.url}/simulate/")
    form = page.locator("#custom-sim")
    with swapped(page, "#custom-sim"):
        form.get_by_label("Quantization").select_option("BF16")
    wait_for_chart(page, "curve-chart")
    prior = float(page.locator(".headline .big").first.inner_text().split()[0].replace(",", ""))

    sustained = form.get_by_label("Sustained BF16 matmul TFLOPS")
    sustained.fill("200")
    with swapped(page, "#custom-sim"):
        sustained.dispatch_event("change")
    wait_for_chart(page, "curve-chart")
    speed = float(page.locator(".headline .big").first.inner_text().split()[0].replace(",", ""))
    assert prior < speed <= prior * 200 / (200 * SUSTAINED_PRIOR) * (1 + 1e-3)
    screenshots(page, "simulate-sustained")

    sustained.fill("-5")
    with swapped(page, "#custom-sim"):
        sustained.dispatch_event("change")
    expect(page.locator("#id_bf16_sustained_tflops_error")).to_be_visible()
