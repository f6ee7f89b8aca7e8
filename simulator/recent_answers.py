"""Answers a web process keeps for a second (GET /api/rankings), refreshed by one thread.

An answer younger than `fresh_s` is served as it is. Once older, the first thread to ask
refreshes it (checks prices, looks the run up: PostgreSQL and Redis) while the other threads
keep serving the answer they have, for at most `stale_s`. Without this every thread of a
process missed in the same instant each second, and a slow database moment (a checkpoint
after the ranking's megabytes were written) reached the tail of every cached read: p99
0.2–0.6 s in the load test against 65 ms (docs/benchmarks.md, Load). A refresh that does not
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
    max_entries: int = 1000
    _answers: dict[str, tuple[float, bytes]] = field(default_factory=dict)
    _refreshing: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, key: str) -> bytes | None:
        """The answer to serve now, or None: then this thread computes it and calls `put`
        (or `drop`), and must call `done` when finished."""
        now = time.monotonic()
        with self._lock:
            entry = self._answers.get(key)
            if entry is None or now - entry[0] > self.stale_s:
                return None
            stored_at, answer = entry
            if now - stored_at < self.fresh_s or key in self._refreshing:
                return answer
            self._refreshing.add(key)
            return None

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
            self._refreshing.discard(key)

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()
            self._refreshing.clear()
