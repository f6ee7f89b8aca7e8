import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from simulator.models import RunKind, RunStatus, SimulationRun
from simulator.services.runs import (
    QueueFullError,
    simulation_run_execute_inline,
    simulation_run_fail,
    simulation_run_finish,
    simulation_run_get_or_create,
    simulation_run_record_chunk,
    simulation_run_start,
)

BODY = {"workload": {"kind": "train", "model": "glm-4.7"}}


def _create(**overrides: object) -> tuple[SimulationRun, bool]:
    kwargs: dict[str, object] = {
        "kind": RunKind.RANKING,
        "body": BODY,
        "engine_version": "1",
        "price_epoch": "prices-1",
        "prices_observed_on": lambda: None,
        "chunks_total": 3,
    }
    kwargs.update(overrides)
    return simulation_run_get_or_create(**kwargs)  # type: ignore[arg-type]


@pytest.mark.django_db
def test_the_same_input_with_the_same_prices_reuses_the_stored_run() -> None:
    first, created_first = _create()
    second, created_second = _create()

    assert (created_first, created_second) == (True, False)
    assert second.pk == first.pk


@pytest.mark.django_db
def test_a_price_change_or_a_new_engine_makes_a_new_run() -> None:
    first, _ = _create()
    repriced, created_repriced = _create(price_epoch="prices-2")
    new_engine, created_engine = _create(engine_version="2")

    assert created_repriced
    assert created_engine
    assert len({first.pk, repriced.pk, new_engine.pk}) == 3


@pytest.mark.django_db
def test_a_failed_run_is_not_reused() -> None:
    failed, _ = _create()
    simulation_run_fail(run_id=str(failed.pk), error="boom")

    retry, created = _create()

    assert created
    assert retry.pk != failed.pk


@pytest.mark.django_db
def test_chunks_raise_progress_and_a_redelivered_chunk_counts_once() -> None:
    run, _ = _create()
    simulation_run_start(run_id=str(run.pk))

    assert simulation_run_record_chunk(run_id=str(run.pk), index=0, result=[1]) is False
    assert simulation_run_record_chunk(run_id=str(run.pk), index=0, result=[1]) is False
    run.refresh_from_db()
    assert (run.status, run.chunks_done, run.progress_pct) == (RunStatus.RUNNING, 1, 31)

    assert simulation_run_record_chunk(run_id=str(run.pk), index=1, result=[2]) is False
    assert simulation_run_record_chunk(run_id=str(run.pk), index=2, result=[3]) is True
    run.refresh_from_db()
    assert (run.chunks_done, run.progress_pct) == (3, 95)


@pytest.mark.django_db
def test_a_finished_run_is_not_started_or_failed_again() -> None:
    run, _ = _create()
    simulation_run_finish(run_id=str(run.pk), result={"rows": []})

    assert simulation_run_start(run_id=str(run.pk)) is None
    simulation_run_fail(run_id=str(run.pk), error="late failure")
    run.refresh_from_db()
    assert (run.status, run.error, run.progress_pct) == (RunStatus.DONE, "", 100)


@pytest.mark.django_db
def test_a_message_for_a_run_that_no_longer_exists_changes_nothing() -> None:
    missing = "00000000-0000-0000-0000-000000000000"

    assert simulation_run_start(run_id=missing) is None
    simulation_run_fail(run_id=missing, error="late")

    assert SimulationRun.objects.count() == 0


@pytest.mark.django_db
def test_a_full_queue_refuses_without_creating_and_a_repeat_still_finds_its_run() -> None:
    queued, _ = _create(max_waiting=1)

    with pytest.raises(QueueFullError):
        _create(body={"workload": {"kind": "train", "model": "other"}}, max_waiting=1)
    again, created = _create(max_waiting=1)

    assert (again.pk, created) == (queued.pk, False)
    assert SimulationRun.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_never_queue_past_the_cap() -> None:
    """Each thread has its own database connection, as gunicorn's threads do: the unlocked
    pre-check lets them all through at once, and the count under the lock must still hold
    the cap (PostgreSQL's advisory lock; SQLite serializes writers by itself)."""
    cap, clients = 3, 12
    start = threading.Barrier(clients)

    def submit(index: int) -> str:
        start.wait()
        try:
            _create(body={"workload": {"kind": "train", "tokens": index}}, max_waiting=cap)
        except QueueFullError:
            return "full"
        finally:
            connection.close()
        return "queued"

    with ThreadPoolExecutor(max_workers=clients) as pool:
        answers = list(pool.map(submit, range(clients)))

    assert answers.count("queued") == cap
    assert answers.count("full") == clients - cap
    assert SimulationRun.objects.filter(status=RunStatus.QUEUED).count() == cap


def _stored(run: SimulationRun) -> tuple[object, ...]:
    fields = ("status", "result", "progress_pct", "started_at", "finished_at", "attempts")
    return tuple(getattr(run, name) for name in fields)


@pytest.mark.django_db
def test_an_inline_run_comes_back_as_it_was_stored() -> None:
    run, _ = _create(kind=RunKind.SINGLE, chunks_total=0)

    returned = simulation_run_execute_inline(run=run, compute=lambda body: {"echo": body})

    assert returned.status == RunStatus.DONE
    assert _stored(returned) == _stored(SimulationRun.objects.get(pk=run.pk))


@pytest.mark.django_db
def test_an_inline_run_finished_meanwhile_keeps_the_first_result() -> None:
    run, _ = _create(kind=RunKind.SINGLE, chunks_total=0)
    stale_copy = SimulationRun.objects.get(pk=run.pk)
    simulation_run_execute_inline(run=run, compute=lambda body: {"first": True})

    returned = simulation_run_execute_inline(run=stale_copy, compute=lambda body: {"second": 1})

    assert returned.result == {"first": True}
    assert _stored(returned) == _stored(SimulationRun.objects.get(pk=run.pk))
