"""Persistent worker pools: created once and reused, like a GPU's SMs."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

WORKERS = 4

_pools: dict[str, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def pool(name: str) -> ThreadPoolExecutor:
    """The pool of ``WORKERS`` threads named ``name``, started on first use."""
    with _lock:
        if name not in _pools:
            _pools[name] = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix=name)
        return _pools[name]


def started(name: str) -> bool:
    """Whether the pool named ``name`` was started: its fused path ran."""
    with _lock:
        return name in _pools


# The paths that ran where no pool tells (train.py models their GPU time).
ran: set[str] = set()
