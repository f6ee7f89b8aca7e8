"""A ranking row, the build page its link opens and the API agree on the workload and the
number, for a sample of rows of every default training ranking: the link carries the whole
workload the row was ranked under (it once carried none, and a row of the NVFP4 ranking
opened as NF4d+NF2e at a third of the speed)."""

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from simulator.services.rankings import DEFAULT_WORKLOADS
from tests.frontend.conftest import ranking_compute

TRAINING_DEFAULTS = [w for w in DEFAULT_WORKLOADS if w.get("kind", "train") == "train"]
ROW_LINK = re.compile(r'<a href="(/builds/candidate/\?[^"]+)">([^<]+)</a>')
SAMPLED_ROWS = (0, 7, 19)

pytestmark = pytest.mark.usefixtures("catalog")


@pytest.mark.parametrize("workload", TRAINING_DEFAULTS, ids=lambda w: f"{w['model']}-{w['quant']}")
def test_ranking_rows_and_their_build_pages_agree(client: Client, workload: dict[str, Any]) -> None:
    ranking_compute({"kind": "train", **workload})
    query = {k: v for k, v in workload.items() if k != "kind"}
    home = client.get("/", query)
    rows = home.context["ranking"]["rows"]
    links = [unescape(href) for href, _ in ROW_LINK.findall(home.content.decode())]
    assert len(links) == len(rows) >= max(SAMPLED_ROWS) + 1

    api = client.get("/api/rankings", {**query, "limit": 500}).json()
    api_speeds = {r["name"]: r["tokens_per_s"] for r in api["rows"]}

    for index in SAMPLED_ROWS:
        row, link = rows[index], links[index]
        assert api_speeds[row["name"]] == pytest.approx(row["tokens_per_s"], rel=1e-9)
        page = client.get(link)
        result = page.context["result"]
        echoed = result["workload"]

        assert echoed["quant"] == workload["quant"], link
        assert echoed["model"] == workload["model"], link
        assert result["best"]["tokens_per_s"] == pytest.approx(row["tokens_per_s"], rel=1e-9), (
            f"row {index} ({row['name']}) says {row['tokens_per_s']:.1f} tok/s, "
            f"its page {result['best']['tokens_per_s']:.1f}: {link}"
        )
