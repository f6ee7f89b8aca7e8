import copy

import pytest

from simulator.engine.accuracy import load_corpus, rows_from_corpus
from simulator.engine.accuracy.corpus import read_corpus_file
from simulator.engine.errors import EngineInputError

CORPUS_ROWS = 43  # validation.json's row_count


def test_the_shipped_corpus_has_43_rows_and_its_assembly_date():
    info, rows = load_corpus()
    assert len(rows) == CORPUS_ROWS
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
