"""simulator.recent_answers: a web process's answers for a second, then served stale only
while one thread refreshes them."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from simulator.recent_answers import RecentAnswers


def _aged(answers: RecentAnswers, key: str, answer: bytes, age_s: float) -> None:
    answers.put(key, answer)
    stored_at, kept = answers._answers[key]
    answers._answers[key] = (stored_at - age_s, kept)


def test_a_fresh_answer_is_served_to_everyone() -> None:
    answers = RecentAnswers(fresh_s=1, stale_s=10)
    answers.put("k", b"a")

    assert [answers.get("k") for _ in range(3)] == [b"a", b"a", b"a"]


def test_once_old_one_caller_refreshes_while_the_others_get_the_old_answer() -> None:
    answers = RecentAnswers(fresh_s=1, stale_s=10)
    _aged(answers, "k", b"old", age_s=2)

    refresher = answers.get("k")
    others = [answers.get("k") for _ in range(3)]
    answers.put("k", b"new")
    answers.done("k")

    assert refresher is None
    assert others == [b"old", b"old", b"old"]
    assert answers.get("k") == b"new"


def test_a_refresh_that_keeps_nothing_drops_the_old_answer() -> None:
    """E.g. the prices changed and the new ranking is only queued: nobody is served the old
    prices after that."""
    answers = RecentAnswers(fresh_s=1, stale_s=10)
    _aged(answers, "k", b"old", age_s=2)

    assert answers.get("k") is None
    answers.drop("k")
    answers.done("k")

    assert answers.get("k") is None


def test_a_failed_refresh_lets_the_next_caller_try_again() -> None:
    answers = RecentAnswers(fresh_s=1, stale_s=10)
    _aged(answers, "k", b"old", age_s=2)

    assert answers.get("k") is None
    answers.done("k")  # the refresher raised: nothing put

    assert answers.get("k") is None  # the next caller refreshes


def test_an_answer_past_its_stale_limit_is_not_served() -> None:
    answers = RecentAnswers(fresh_s=0.01, stale_s=0.02, wait_s=0.01)
    answers.put("k", b"a")
    time.sleep(0.05)

    assert answers.get("k") is None
    assert answers.get("k") is None  # nobody else gets it either


def test_it_keeps_at_most_max_entries() -> None:
    answers = RecentAnswers(fresh_s=1, stale_s=10, max_entries=2)
    for key in ("a", "b", "c"):
        answers.put(key, key.encode())

    assert [answers.get(key) for key in ("a", "b", "c")] == [None, b"b", b"c"]


def test_with_no_answer_yet_the_other_threads_wait_for_the_one_computing_it() -> None:
    answers = RecentAnswers(fresh_s=1, stale_s=10)
    computed: list[str] = []
    first_computing = threading.Event()

    def ask(name: str) -> bytes:
        answer = answers.get("k")
        if answer is not None:
            return answer
        computed.append(name)
        first_computing.set()
        time.sleep(0.2)  # the database and Redis, for the first request of a process
        answers.put("k", b"computed by " + name.encode())
        answers.done("k")
        return b"computed by " + name.encode()

    with ThreadPoolExecutor(max_workers=4) as pool:
        first = pool.submit(ask, "first")
        first_computing.wait(5)
        others = list(pool.map(ask, ["b", "c", "d"]))

    assert computed == ["first"]
    assert first.result() == b"computed by first"
    assert others == [b"computed by first"] * 3
