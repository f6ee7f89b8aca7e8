import copy

import pytest

from simulator.engine.calibration import load_corpus, rows_from_corpus
from simulator.engine.calibration.corpus import (
    GATHERED_PATH,
    ISO_DATE,
    MEASURED_PATH,
    original_rows,
    read_corpus_file,
    source_of,
)
from simulator.engine.errors import EngineInputError

CORPUS_ROWS = 43  # the team's corpus as assembled (H001–H085)
GATHERED = read_corpus_file(GATHERED_PATH)  # rows from sources the team's corpus did not cite
FINE_TUNING_ROWS = 40  # issue 15: at least 40 fine-tuning rows (LoRA, QLoRA, full; 1 and more GPUs)
EXTENSION_ROWS = 71  # X001–X071: the other llama-batched-bench cells of H039's source file


def test_the_shipped_corpus_has_43_rows_and_its_assembly_date():
    info, rows = load_corpus()
    assert len(original_rows(rows)) == CORPUS_ROWS
    assert read_corpus_file()["row_count"] == CORPUS_ROWS + EXTENSION_ROWS
    measured = read_corpus_file(MEASURED_PATH)["row_count"]  # the planner's own runs
    assert len(rows) == CORPUS_ROWS + EXTENSION_ROWS + GATHERED["row_count"] + measured
    assert info.assembled == "2026-11-21"
    assert rows[0].id == "H001"
    assert rows[0].source_url == "https://github.com/ggml-org/llama.cpp/pull/4766"


def _with_row(change):
    data = copy.deepcopy(read_corpus_file())
    change(data["rows"][2])
    return data


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.pop("value"), "rows[2].value"),
        (lambda r: r.update(value=-1), "rows[2].value"),
        (lambda r: r.update(unit=""), "rows[2].unit"),
        (lambda r: r.update(hardware="RTX 4090"), "rows[2].hardware"),
        (lambda r: r["source"].update(url="not a url"), "rows[2].source.url"),
        (lambda r: r.update(id="H001"), "rows[2].id"),
    ],
)
def test_a_bad_row_is_rejected_naming_its_field(change, field):
    with pytest.raises(EngineInputError) as error:
        rows_from_corpus(_with_row(change))
    assert error.value.field == field


def test_extension_rows_cite_h039s_source_and_say_what_they_extend():
    _, rows = load_corpus()
    h039 = next(row for row in rows if row.id == "H039")
    extension = [row for row in rows if row.id.startswith("X")]
    assert all(row.extends_corpus for row in extension)
    assert len(extension) == EXTENSION_ROWS
    assert all(row.id.startswith("X") and row.category == "serving_batched" for row in extension)
    assert {row.source_url for row in extension} == {h039.source_url}


def test_gathered_rows_come_from_new_sources_each_with_where_and_when_it_was_read():
    team = {source_of(row) for row in rows_from_corpus(read_corpus_file())}
    gathered = GATHERED["rows"]
    assert len(gathered) == GATHERED["row_count"]
    for row in gathered:
        source = row["source"]
        assert source["url"].split("#", 1)[0] not in team, row["id"]
        assert source["where"].strip(), row["id"]
        assert ISO_DATE.match(source["read"]), row["id"]
        assert row["extends_corpus"].startswith("extends the corpus"), row["id"]


def test_the_corpus_meets_issue_15s_size_breadth_and_fine_tuning_share():
    _, rows = load_corpus()
    assert len(rows) >= 300
    assert len({source_of(row) for row in rows}) >= 40
    fine_tuning = [row for row in rows if row.category.startswith("training")]
    assert len(fine_tuning) >= FINE_TUNING_ROWS
