"""Training figures published as a time per step or a rate of samples: read as the tokens they
hold when the row pins them (calibration/figures.py), else listed with the reason."""

from typing import Any

import pytest

from simulator.engine.calibration.corpus import MeasurementRow, row_from_json
from simulator.engine.calibration.predict import predict_row

SEQ_LEN = 4096


def _row(
    unit: str = "tokens/s", metric: str = "training throughput", **workload: Any
) -> MeasurementRow:
    body = {
        "id": "S1", "category": "training_finetune",
        "hardware": {"gpu": "NVIDIA H200", "gpu_count": 1},
        "engine": "PyTorch + transformers + PEFT", "model": "Llama-3.1-8B", "quant": "BF16 (LoRA)",
        "workload": {
            "phase": "train", "method": "LoRA", "batch_size": 2, "grad_accum": 1,
            "seq_len": SEQ_LEN, "lora_rank": 16, "gradient_checkpointing": False,
            "packed": True, **workload,
        },
        "metric": metric, "value": 1.0, "unit": unit, "source": {"url": "https://example.org/x"},
    }  # fmt: skip
    return row_from_json(body, "rows[0]")


def _tokens_per_s(**workload: Any) -> float:
    prediction = predict_row(_row(**workload))
    assert prediction.modeled, prediction.reason
    assert prediction.predicted is not None
    return prediction.predicted


def _published(unit: str, metric: str = "training speed", **workload: Any) -> float:
    prediction = predict_row(_row(unit, metric, **workload))
    assert prediction.modeled, prediction.reason
    assert prediction.predicted is not None
    return prediction.predicted


def test_seconds_per_step_are_the_tokens_of_one_step_over_the_speed() -> None:
    speed = _tokens_per_s()
    assert _published("s/it") == pytest.approx(2 * SEQ_LEN / speed)
    assert _published("Sec/step", "time per step") == pytest.approx(2 * SEQ_LEN / speed)


def test_an_optimizer_step_holds_every_accumulated_micro_batch() -> None:
    speed = _tokens_per_s(grad_accum=8, step="optimizer")
    assert _published("s/it", grad_accum=8, step="optimizer") == pytest.approx(
        8 * 2 * SEQ_LEN / speed
    )
    # a step counted per micro-batch holds one micro-batch whatever the accumulation
    assert _published("s/it", grad_accum=8, step="micro-batch") == pytest.approx(
        2 * SEQ_LEN / speed
    )


def test_a_time_per_thousand_iterations_in_minutes() -> None:
    speed = _tokens_per_s()
    published = _published("min (Time 1k iterations)", "time for 1k iterations")
    assert published == pytest.approx(1000 * 2 * SEQ_LEN / speed / 60)


def test_samples_per_second_are_the_speed_over_the_sequence_length() -> None:
    speed = _tokens_per_s()
    assert _published("samples/s") == pytest.approx(speed / SEQ_LEN)
    assert _published("iter/s") == pytest.approx(speed / (2 * SEQ_LEN))


def test_data_parallel_replicas_each_take_their_micro_batches() -> None:
    two_gpus: dict[str, Any] = {"parallelism": "DDP", "grad_accum": 4, "step": "optimizer"}
    row = _row(**two_gpus)
    body_gpus = dict(row.hardware) | {"gpu_count": 2}
    speed_row = row_from_json(_as_json(row, hardware=body_gpus), "rows[0]")
    step_row = row_from_json(
        _as_json(row, hardware=body_gpus, unit="s/it", metric="training speed"), "rows[0]"
    )
    speed, step = predict_row(speed_row), predict_row(step_row)
    assert speed.predicted is not None, speed.reason
    assert step.predicted is not None, step.reason
    assert step.predicted == pytest.approx(2 * 4 * 2 * SEQ_LEN / speed.predicted)


def test_a_stated_global_batch_is_the_step() -> None:
    speed = _tokens_per_s()
    assert _published("s/it", sequences_per_step=16) == pytest.approx(16 * SEQ_LEN / speed)


@pytest.mark.parametrize(
    ("unit", "metric", "workload", "reason"),
    [
        ("s/it", "training speed", {"packed": False}, "seq_len tokens long"),
        ("samples/s", "training speed", {"packed": False}, "seq_len tokens long"),
        ("s/it", "training speed", {"grad_accum": 4}, "whether its step is the optimizer step"),
        ("s/it", "training speed", {"grad_accum": None}, "gradient accumulation the row does not"),
        ("s", "total training time", {}, "whole run's wall time"),
    ],
)
def test_a_figure_whose_tokens_are_not_pinned_is_listed_with_the_reason(
    unit: str, metric: str, workload: dict[str, Any], reason: str
) -> None:
    row = _row(unit, metric, **{k: v for k, v in workload.items() if v is not None})
    if workload.get("grad_accum", 1) is None:
        row = row_from_json(
            _as_json(row, workload={k: v for k, v in row.workload.items() if k != "grad_accum"}),
            "rows[0]",
        )
    prediction = predict_row(row)
    assert not prediction.modeled
    assert reason in prediction.reason


def test_gpus_sharing_one_replica_need_the_global_batch() -> None:
    row = _row("s/it", "training speed", parallelism="sequence parallel 2 (Ulysses)")
    two = row_from_json(_as_json(row, hardware={"gpu": "NVIDIA H200", "gpu_count": 2}), "rows[0]")
    prediction = predict_row(two)
    assert not prediction.modeled
    assert "states no global batch" in prediction.reason


def _as_json(row: MeasurementRow, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": row.id, "category": row.category, "hardware": dict(row.hardware),
        "engine": row.engine, "model": row.model, "quant": row.quant,
        "workload": dict(row.workload), "metric": row.metric, "value": row.value,
        "unit": row.unit, "source": {"url": row.source_url},
    }  # fmt: skip
    return body | changes
