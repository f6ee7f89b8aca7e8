"""A ranking created inside a transaction that rolls back sends no task: the services send
after commit (transaction.on_commit), checked on a real Redis broker."""

import pytest
from django.db import transaction

from simulator.models import SimulationRun
from tests.reliability.conftest import RedisServer
from tests.reliability.runs import ranking_queue

QUEUE = "celery"


class RollbackError(Exception):
    """Raised inside the transaction to roll it back, as a failing request would."""


def _queue_then_fail() -> None:
    with transaction.atomic():
        ranking_queue()
        raise RollbackError


@pytest.mark.services
def test_a_ranking_queued_in_a_rolled_back_transaction_sends_no_task(
    own_redis: RedisServer, catalog_committed: None
) -> None:
    with pytest.raises(RollbackError):
        _queue_then_fail()

    assert SimulationRun.objects.count() == 0
    assert own_redis.client().llen(QUEUE) == 0


@pytest.mark.services
def test_a_ranking_queued_in_a_committed_transaction_sends_one_task(
    own_redis: RedisServer, catalog_committed: None
) -> None:
    with transaction.atomic():
        run = ranking_queue()
        assert own_redis.client().llen(QUEUE) == 0  # not before the commit

    assert own_redis.client().llen(QUEUE) == 1
    message = own_redis.client().lindex(QUEUE, 0)
    assert isinstance(message, bytes)
    assert str(run.pk).encode() in message
