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
