from pathlib import Path

import pytest
from django.core.management import call_command

from simulator.models import SimulationRun
from simulator.services import rankings
from simulator.services.runs import simulation_run_start

FIXTURES = sorted((Path(__file__).resolve().parents[2] / "catalog" / "fixtures").glob("*.json"))


@pytest.fixture
def catalog(db: None) -> None:
    """The shipped catalog: parts, dated prices and seed builds A–D."""
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)


@pytest.fixture
def catalog_committed(transactional_db: None) -> None:
    """The shipped catalog, committed so that worker processes see it."""
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)


def ranking_finish_here(run: SimulationRun) -> SimulationRun:
    """A queued ranking computed in this process, as its tasks would on a worker: planned,
    each chunk simulated and stored, merged (at once when nothing is left to simulate)."""
    simulation_run_start(run_id=str(run.pk))
    pending = rankings.ranking_pending_chunks(run=run)
    for index in pending:
        rankings.ranking_chunk_process(run_id=str(run.pk), index=index)
    if not pending:
        rankings.ranking_merge(run_id=str(run.pk))
    run.refresh_from_db()
    return run
