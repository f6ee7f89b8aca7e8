"""The accuracy page (test client): the report's figures, every row with its source, the
scatter's data, and the error bands on the other pages."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from simulator.engine.calibration import AccuracyReport
from simulator.models import Measurement
from tests.frontend.conftest import GLM, ranking_compute

pytestmark = pytest.mark.django_db
BUILD_A = "seed-a-budget-single-gpu"


def test_the_page_shows_the_corpus_date_and_overall_figures(
    corpus: int, engine_report: AccuracyReport
) -> None:
    html = Client().get("/accuracy/").content.decode()
    assert '<strong id="corpus-date">2026-11-21</strong>' in html
    assert engine_report.median_abs_error is not None
    assert f"{engine_report.median_abs_error * 100:.1f} %" in html


def test_every_accepted_row_is_in_the_table_with_its_source_link(corpus: int) -> None:
    """A published row links its page; the planner's own runs name their results file."""
    html = Client().get("/accuracy/").content.decode()
    measured = 0
    for row in Measurement.objects.all():
        assert f'id="row-{row.row_id}"' in html
        if row.source_url:
            assert f'href="{row.source_url}"' in html
        else:
            assert row.source["kind"] == "measured"
            path = row.source["path"]
            assert f'<code title="a results file in the planner repository">{path}</code>' in html
            measured += 1
    assert measured > 0


def test_the_scatter_has_one_point_per_modeled_row(corpus: int) -> None:
    html = Client().get("/accuracy/").content.decode()
    match = re.search(r'<script id="accuracy-data" type="application/json">(.*?)</script>', html)
    assert match is not None
    chart = json.loads(match.group(1))
    points = [p for series in chart["categories"] for p in series["points"]]
    assert len(points) == Measurement.objects.filter(modeled=True).count()
    assert 0 < chart["min"] < min(min(p["x"], p["y"]) for p in points)


def test_the_nav_links_the_accuracy_page(db: None, corpus: int) -> None:
    assert 'href="/accuracy/"' in Client().get("/api-guide/").content.decode()


def test_a_build_page_headline_carries_the_fine_tuning_band(catalog: None, corpus: int) -> None:
    html = Client().get(f"/builds/{BUILD_A}/").content.decode()
    assert 'id="headline-band"' in html
    assert "of this class (fine-tuning throughput)" in html


def test_the_rankings_table_carries_the_band(catalog: None, corpus: int, no_queue: object) -> None:
    ranking_compute(GLM)
    html = Client().get("/").content.decode()
    assert "of this class (fine-tuning throughput)" in html
    assert re.search(r'<span class="band"[^>]*>±\d+ %</span>', html)


def test_the_compare_page_shows_each_builds_band(catalog: None, corpus: int) -> None:
    query = f"builds={BUILD_A}&builds=seed-c-single-rtx-5090"
    html = Client().get(f"/compare/?{query}").content.decode()
    assert html.count("of this class (fine-tuning throughput)") == 2
