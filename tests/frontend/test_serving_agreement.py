"""A serving ranking row, the serving build page its link opens and POST /api/simulate with
the same workload and parts agree on the workload and the numbers, for a sample of rows of
the default serving ranking and of one with the placement fixed to hybrid (one row that
offloads experts and one whole system among them, where the top 50 have one)."""

import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from rest_framework.test import APIClient

from simulator.services.rankings import DEFAULT_WORKLOADS
from tests.frontend.conftest import ranking_compute

SERVING_DEFAULT = next(w for w in DEFAULT_WORKLOADS if w.get("kind") == "infer")
ROW_LINK = re.compile(r'<a href="(/builds/candidate/serve/\?[^"]+)">([^<]+)</a>')
SAMPLED_ROWS = (0, 7, 19)

pytestmark = pytest.mark.usefixtures("catalog")


def _sample(rows: list[dict[str, Any]]) -> list[int]:
    """The fixed sample, plus the first row offloading experts and the first whole system."""
    picked = list(SAMPLED_ROWS)
    offloading = [i for i, r in enumerate(rows) if r["weights_gb"].get("cpu", 0) > 0
                  and r["placement"] == "hybrid"]  # fmt: skip
    systems = [i for i, r in enumerate(rows) if r["placement"] == "unified"]
    for found in offloading[:1] + systems[:1]:
        if found not in picked:
            picked.append(found)
    return picked


# The default ranking (each build's fastest placement), and one with the placement fixed to
# hybrid: its rows keep as many experts on the GPUs as fit, which the link must carry.
RANKINGS = [SERVING_DEFAULT, {**SERVING_DEFAULT, "placement": "hybrid"}]


@pytest.mark.parametrize("workload", RANKINGS, ids=lambda w: w.get("placement", "auto"))
def test_serving_rows_their_pages_and_the_api_agree(
    client: Client, workload: dict[str, Any]
) -> None:
    ranking_compute(workload)
    query = {k: v for k, v in workload.items() if k != "kind"}
    serve = client.get("/serve/", query)
    rows = serve.context["ranking"]["rows"]
    links = [unescape(href) for href, _ in ROW_LINK.findall(serve.content.decode())]
    assert len(links) == len(rows) >= max(SAMPLED_ROWS) + 1
    ranked = serve.context["ranking"]["workload"]

    for index in _sample(rows):
        row, link = rows[index], links[index]
        params = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
        # The link carries the whole workload the row was ranked under.
        assert {k: params[k] for k in ("model", "quant", "context", "placement")} == {
            "model": ranked["model"], "quant": ranked["quant"],
            "context": str(ranked["context"]), "placement": ranked["placement"],
        }, link  # fmt: skip
        offloaded = params.get("offload_from_layer")
        if ranked["placement"] == "hybrid":
            assert offloaded == str(row["offload_from_layer"]), link
        else:
            assert offloaded is None, link

        page = client.get(link)
        result = page.context["result"]
        assert result["workload"]["model"] == ranked["model"]
        assert result["workload"]["quant"] == ranked["quant"]
        assert result["workload"]["context"] == ranked["context"]
        for figure in ("decode_tokens_per_s", "prefill_tokens_per_s", "max_context"):
            assert result[figure] == pytest.approx(row[figure], rel=1e-9), (
                f"row {index} ({row['name']}) {figure}: {row[figure]}, its page {result[figure]}"
            )
        assert page.context["placement_words"] == row["placement_label"]
        assert f'id="decode-speed">{row["decode_tokens_per_s"]:,.1f}<' in page.content.decode()

        parts = [{"part_id": int(p), "quantity": int(q)}
                 for p, q in (item.split(":") for item in params["parts"].split(","))]  # fmt: skip
        api = APIClient().post(
            "/api/simulate",
            {"workload": {"kind": "infer", **{k: ranked[k] for k in ("model", "quant", "context",
                                                                     "placement")},
                          "offload_from_layer": None if offloaded is None else int(offloaded)},
             "parts": parts},
            format="json",
        )  # fmt: skip
        assert api.status_code == 200, api.content
        answer = api.json()["result"]
        for figure in ("decode_tokens_per_s", "prefill_tokens_per_s", "max_context"):
            assert answer[figure] == pytest.approx(row[figure], rel=1e-9), (index, figure)
        assert answer["placement"] == row["placement"]
