"""The catalog's parts tables and a part's page: kinds in words, every part a link, every
figure with its unit and whole numbers without decimals, a spec table whose missing figures
read "not stated", and the price history charted by condition."""

import datetime
import re
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from catalog.models import PART_MODELS, Part, PartKind, System
from catalog.selectors import RateTable
from frontend import charts
from frontend.catalog_selectors import SPECS, part_spec_fields
from tests.catalog.factories import GpuFactory, PriceObservationFactory, PsuFactory

BUILD_A = "seed-a-budget-single-gpu"
ALL_KINDS = PartKind.values


def _text(response: Any) -> str:
    return str(response.content.decode())


def _visible(response: Any) -> str:
    """The page's text without its tags (attributes such as links' addresses left out)."""
    return re.sub(r"<[^>]+>", " ", _text(response))


def _rtx_4090_cells(client: Client) -> list[str]:
    table = client.get("/catalog/", {"kind": "gpu"}).context["table"]
    row = next(row for row in table["rows"] if row["part"].name == "RTX 4090")
    return [spec.text for spec in row["specs"]]


@pytest.mark.usefixtures("catalog")
def test_the_nvme_tab_names_its_kind_in_words(client: Client) -> None:
    response = client.get("/catalog/", {"kind": "nvme_drive"})

    assert "<h2>NVMe drives</h2>" in _text(response)
    assert "nvme_drive" not in _visible(response)


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize("kind", ALL_KINDS)
def test_every_part_name_in_a_catalog_table_links_to_its_part_page(
    client: Client, kind: str
) -> None:
    response = client.get("/catalog/", {"kind": kind})

    for row in response.context["table"]["rows"]:
        part = row["part"]
        assert f'<a href="/catalog/parts/{part.slug}/">{part.name}</a>' in _text(response)


@pytest.mark.usefixtures("catalog")
def test_a_gpus_figures_carry_their_units(client: Client) -> None:
    cells = _rtx_4090_cells(client)

    assert cells == ["24 GB", "165 TFLOPS", "1,008 GB/s", "no", "PCIe 4.0", "450 W",
                     "3 slots", "304 mm"]  # fmt: skip


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize("kind", ALL_KINDS)
def test_no_catalog_figure_prints_a_whole_number_with_decimals(client: Client, kind: str) -> None:
    table = client.get("/catalog/", {"kind": kind}).context["table"]

    figures = [spec.text for row in table["rows"] for spec in row["specs"] if spec.numeric]
    assert figures
    assert not [text for text in figures if re.search(r"\d\.0\b", text)]


@pytest.mark.usefixtures("catalog")
def test_a_boards_lane_split_and_m2_slots_read_in_words(client: Client) -> None:
    table = client.get("/catalog/", {"kind": "motherboard"}).context["table"]
    texts = {spec.text for row in table["rows"] for spec in row["specs"]}

    assert "up to 8 cards at x16" in texts  # ASRock Rack TURIN2D24G-2L+
    assert "1 card: x16; 2 cards: x8/x8" in texts
    assert "4\u00a0×\u00a0PCIe\u00a05.0, 2\u00a0×\u00a0PCIe\u00a03.0" in texts


def test_every_field_of_every_part_kind_has_a_label() -> None:
    fields = {field for model in PART_MODELS.values() for field in part_spec_fields(model)}

    assert fields <= set(SPECS)


@pytest.mark.usefixtures("catalog")
def test_a_part_page_lists_every_specification_with_its_unit_and_source(client: Client) -> None:
    response = client.get("/catalog/parts/rtx-4090/")

    specs = {spec.label: spec.text for spec in response.context["specs"]}
    assert specs["VRAM"] == "24 GB"
    assert specs["memory bandwidth"] == "1,008 GB/s"
    assert specs["FP16 tensor, FP16 accumulate, dense"] == "330.3 TFLOPS"
    assert specs["width"] == "3 slots"
    assert len(specs) == len(part_spec_fields(type(response.context["part"])))
    assert "Source of these figures: seed 000" in _text(response)


@pytest.mark.django_db
def test_a_missing_specification_reads_not_stated(client: Client) -> None:
    GpuFactory.create(name="Quiet GPU", fp16_tflops=None)
    PsuFactory.create(name="Plain PSU", efficiency="")

    gpu = {s.label: s for s in client.get("/catalog/parts/quiet-gpu/").context["specs"]}
    psu = {s.label: s for s in client.get("/catalog/parts/plain-psu/").context["specs"]}

    assert gpu["FP16 tensor, FP16 accumulate, dense"].text == "not stated"
    assert psu["80 PLUS rating"].text == "not stated"
    assert not psu["80 PLUS rating"].stated


@pytest.mark.usefixtures("catalog")
def test_a_gpu_page_says_how_the_card_is_cooled_and_where_it_says_so(client: Client) -> None:
    l40s = client.get("/catalog/parts/l40s/")
    fan = client.get("/catalog/parts/rtx-pro-6000/")
    unknown = client.get("/catalog/parts/a100-80g/")

    def cooling(response: Any) -> str:
        return str({s.label: s.text for s in response.context["specs"]}["cooling"])

    assert cooling(l40s) == "passive: needs a rack chassis's airflow"
    assert "passively cooled via the host system" in _text(l40s)  # the cited words
    assert cooling(fan) == "its own fan"
    assert cooling(unknown) == "not stated"


@pytest.mark.usefixtures("catalog")
def test_a_gpu_page_shows_the_engine_figures_it_is_simulated_with_and_their_sources(
    client: Client,
) -> None:
    """The SM count (what caps a runtime's streamed bandwidth) and the sustained matmul rate
    come from the engine's device table, each with its own source; a GPU without a record of
    one says so and what the engine does instead."""
    a100 = client.get("/catalog/parts/a100-80g/")
    l4 = client.get("/catalog/parts/l4/")
    gpu_figures = {f.label: f for f in a100.context["engine_figures"]}
    assert gpu_figures["SMs / compute units"].text == "108"
    assert "RightNow-GPU-Database" in gpu_figures["SMs / compute units"].source
    assert gpu_figures["sustained BF16 matmul"].text == "252.9 TFLOPS"
    assert "MAMF" in gpu_figures["sustained BF16 matmul"].source
    page = _visible(a100)
    assert "What the simulation also takes for it" in page
    assert "252.9 TFLOPS" in page
    units = {f.label: f for f in l4.context["engine_figures"]}["SMs / compute units"]
    assert not units.stated
    assert "not capped per SM" in units.source
    cpu = client.get("/catalog/parts/" + _first_slug("cpu") + "/")
    assert cpu.context["engine_figures"] == []


@pytest.mark.usefixtures("catalog")
def test_gpu_and_system_pages_show_their_measured_streaming_bandwidth_or_say_it_is_missing(
    client: Client,
) -> None:
    """What a streaming benchmark measured (a runtime's bandwidth efficiency is a share of
    it), with its source; without a measurement the page says what the engine takes."""

    def bandwidth(slug: str) -> Any:
        figures = client.get(f"/catalog/parts/{slug}/").context["engine_figures"]
        return {f.label: f for f in figures}["sustained memory bandwidth"]

    rtx = bandwidth("rtx-4090")
    assert rtx.text == "912 GB/s (90% of peak)"
    assert "chsasank/device-benchmarks" in rtx.source
    spark = bandwidth("nvidia-dgx-spark-founders-edition-128gb")
    assert spark.text == "232.5 GB/s (85% of peak)"
    assert "antirez/ds4" in spark.source
    mini = bandwidth("mac-mini-m4-pro-64gb")
    assert not mini.stated
    assert "median measured share" in mini.source


@pytest.mark.usefixtures("catalog")
def test_a_system_page_shows_its_network_port_with_its_source_or_says_it_is_unpublished(
    client: Client,
) -> None:
    def network(slug: str) -> Any:
        response = client.get(f"/catalog/parts/{slug}/")
        assert response.status_code == 200
        label = "network port (two of it split a model over it)"
        return {f.label: f for f in response.context["engine_figures"]}[label]

    studio = network("mac-studio-m3-ultra-96gb")
    assert (studio.text, studio.stated) == ("10 Gbit/s", True)
    assert "pocket-lint.com" in studio.source
    framework = network("framework-desktop-ryzen-ai-max-395-128gb")
    assert framework.text == "5 Gbit/s"
    assert "RTL8126" in framework.source

    System.objects.filter(slug="bosgame-m5-128gb").update(
        network_gbit_per_s=None, network_source=""
    )
    bosgame = network("bosgame-m5-128gb")
    assert not bosgame.stated
    assert "not offered as a pair" in bosgame.source


def _first_slug(kind: str) -> str:
    return str(Part.objects.filter(kind=kind).order_by("pk").values_list("slug", flat=True)[0])


@pytest.mark.django_db
def test_a_count_of_one_takes_the_singular(client: Client) -> None:
    GpuFactory.create(name="Slim GPU", slot_width=1)

    specs = {s.label: s.text for s in client.get("/catalog/parts/slim-gpu/").context["specs"]}

    assert specs["width"] == "1 slot"


def test_the_price_chart_draws_valid_prices_in_dollars_one_line_per_condition() -> None:
    gpu = GpuFactory.build()
    day = datetime.date
    # one euro buys 1.25 dollars; the table has no rate for pounds
    rates = RateTable(units_per_eur={"EUR": Decimal(1), "USD": Decimal("1.25")},
                      usd_rate_date=day(2026, 1, 1))  # fmt: skip
    observations = [
        PriceObservationFactory.build(part=gpu, observed_on=day(2026, 3, 1), amount=Decimal(900)),
        PriceObservationFactory.build(part=gpu, observed_on=day(2026, 1, 1), amount=Decimal(1000)),
        PriceObservationFactory.build(part=gpu, observed_on=day(2026, 2, 1), condition="used",
                                      vendor="eBay", amount=Decimal(700)),
        PriceObservationFactory.build(part=gpu, observed_on=day(2026, 2, 2), currency="EUR",
                                      amount=Decimal("800.00"), vendor="shop.de"),
        PriceObservationFactory.build(part=gpu, observed_on=day(2026, 2, 4), currency="GBP"),
        PriceObservationFactory.build(part=gpu, observed_on=day(2026, 2, 3), withdrawn=True,
                                      withdrawn_reason="typo"),
    ]  # fmt: skip

    chart = charts.price_chart(observations, rates=rates, today=day(2026, 11, 25))

    assert chart["today"] == "2026-11-25"
    assert chart["series"] == [
        {"label": "new", "points": [
            {"x": "2026-01-01", "y": 1000.0, "vendor": "test shop"},
            {"x": "2026-02-02", "y": 1000.0, "vendor": "shop.de", "published": "800.00 EUR"},
            {"x": "2026-03-01", "y": 900.0, "vendor": "test shop"}]},
        {"label": "used", "points": [{"x": "2026-02-01", "y": 700.0, "vendor": "eBay"}]},
    ]  # fmt: skip


@pytest.mark.usefixtures("catalog")
def test_a_build_pages_parts_table_names_kinds_in_words_and_links_each_part(
    client: Client,
) -> None:
    response = client.get(f"/builds/{BUILD_A}/")

    assert "<td>NVMe drive</td>" in _text(response)
    assert "nvme_drive" not in _visible(response)
    assert '<a href="/catalog/parts/rtx-4090/">RTX 4090</a>' in _text(response)
