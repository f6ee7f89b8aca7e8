"""Answers a web process keeps for a second (GET /api/rankings), refreshed by one thread.

An answer younger than `fresh_s` is served as it is. Once older, the first thread to ask
refreshes it (checks prices, looks the run up: PostgreSQL and Redis) while the other threads
keep serving the answer they have, for at most `stale_s`; with no answer yet, they wait for
that thread's. Without this every thread of a process missed in the same instant each
second (and all of a fresh process's threads at once, each opening its own database
connection), which reached the tail of the cached reads in the load test
(docs/benchmarks.md, Load). A refresh that does not
end in an answer to keep (the prices changed and a new ranking is queued) drops the entry,
so nobody is served the old prices after it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass
class RecentAnswers:
    fresh_s: float
    stale_s: float
    wait_s: float = 5.0
    max_entries: int = 1000
    _answers: dict[str, tuple[float, bytes]] = field(default_factory=dict)
    _computing: dict[str, threading.Event] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, key: str) -> bytes | None:
        """The answer to serve now, or None: then this thread computes it, calls `put` (or
        `drop`), and must call `done` when finished. With no answer at all, a thread waits
        (up to `wait_s`) for the one already computing it rather than computing it too: a
        fresh process's threads all asked at once."""
        waited = False
        while True:
            now = time.monotonic()
            with self._lock:
                entry = self._answers.get(key)
                if entry is not None and now - entry[0] > self.stale_s:
                    entry = None
                computing = self._computing.get(key)
                if entry is not None and (now - entry[0] < self.fresh_s or computing is not None):
                    return entry[1]
                if computing is None or waited:
                    self._computing.setdefault(key, threading.Event())
                    return None
            waited = True
            computing.wait(self.wait_s)

    def put(self, key: str, answer: bytes) -> None:
        with self._lock:
            if len(self._answers) >= self.max_entries and key not in self._answers:
                self._answers.pop(next(iter(self._answers)))  # the oldest inserted
            self._answers[key] = (time.monotonic(), answer)

    def drop(self, key: str) -> None:
        with self._lock:
            self._answers.pop(key, None)

    def done(self, key: str) -> None:
        with self._lock:
            computing = self._computing.pop(key, None)
        if computing is not None:
            computing.set()

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()
            self._computing.clear()
