"""The ranking and serving pages take the buyer's filters (new parts only, region, power
limit, largest enclosure) as boxes; the table keeps only what they allow and the
explanation says what they left out."""

import re
from typing import Any

import pytest
from django.test import Client

from catalog.models import Cpu, Gpu
from tests.frontend.conftest import GLM, ranking_compute

FLASH = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768,
         "placement": "auto"}  # fmt: skip
pytestmark = pytest.mark.usefixtures("catalog")


def _text(response: Any) -> str:
    assert response.status_code == 200
    return str(response.content.decode())


def _table(html: str) -> str:
    found = re.search(r"<table class=\"ranking[^\"]*\">.*?</table>", html, re.S)
    assert found is not None, "no ranking table"
    return found.group(0)


def _gpu_counts(table: str) -> list[tuple[int, str]]:
    """Each row's GPU line ("2x RTX 4090") as (count, name)."""
    names = "|".join(re.escape(name) for name in Gpu.objects.values_list("name", flat=True))
    return [(int(n), name) for n, name in re.findall(rf"(\d+)x ({names})\b", table)]


def test_the_home_page_takes_a_power_limit_and_says_what_it_left_out(client: Client) -> None:
    ranking_compute(GLM)
    lowest_cpu_w = min(Cpu.objects.values_list("tdp_w", flat=True))
    limit = 1000

    html = _text(client.get(f"/?power_w_max={limit}&include_estimates=on"))

    for field in ("new_only", "region", "power_w_max", "case_size_max"):
        assert f'name="{field}"' in html
    assert re.search(rf'name="power_w_max"[^>]*value="{limit}"', html)
    rows = _gpu_counts(_table(html))
    assert rows
    tdp = dict(Gpu.objects.values_list("name", "tdp_w"))
    assert all(count * tdp[name] + lowest_cpu_w <= limit for count, name in rows)
    assert re.search(rf"Left out by your limits: \d+ draw more than {limit:,} W", html)


def test_a_bad_power_limit_is_shown_on_its_field_not_a_server_error(client: Client) -> None:
    html = _text(client.get("/?power_w_max=-5"))

    field = re.search(r'<div class="field has-error">(.*?)<div class="field[ "]', html, re.S)
    assert field is not None
    assert 'name="power_w_max"' in field.group(1)
    assert "greater than or equal to 1" in field.group(1)


def test_the_serving_page_takes_the_enclosure_limit(client: Client) -> None:
    ranking_compute(FLASH)

    html = _text(client.get("/serve/?case_size_max=compact&include_estimates=on"))

    table = _table(html)
    assert "Mac Studio" in table or "Mac mini" in table
    assert not _gpu_counts(table)  # every tower build needs a bigger enclosure
    assert "need an enclosure bigger than a compact desktop (whole system)" in html
