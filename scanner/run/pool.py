"""Running file tasks: in this process for small batches, in a process pool otherwise.

As LibCST's codemod runner does it: serial for a handful of files, a pool sized
to the machine for more, started with ``fork`` where the platform has it so the
workers inherit the already-imported parser. Outcomes are streamed back.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from functools import partial
from types import TracebackType
from typing import TypeVar

from scanner.model import ScanError
from scanner.run.work import FileOutcome, FileTask, Options, process

SERIAL_BELOW = 24  # fewer tasks than this are not worth starting workers for
HUGE_BYTES = 512 * 1024  # files this large are parsed by one worker at a time
SEARCH_ALONE_BELOW = 512  # fewer files than this are searched in this process
T = TypeVar("T")
R = TypeVar("R")


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def safe_process(task: FileTask, options: Options) -> FileOutcome:
    """``process``, with an unexpected failure turned into that file's error."""
    try:
        return process(task, options)
    except Exception as exc:  # a scanner bug must not sink the whole scan
        message = f"Internal error while analysing this file ({type(exc).__name__}: {exc})."
        return FileOutcome(task.rel, error=ScanError(task.rel, message))


class Runner:
    """Runs batches of tasks, keeping one pool for the whole scan."""

    def __init__(self, options: Options, jobs: int | None = None) -> None:
        self.options = options
        self.jobs = jobs if jobs is not None else default_jobs()
        self._executor: Executor | None = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)

    def prepare(self, pending: int) -> None:
        """Told that ``pending`` tasks are waiting so far: once they are enough for the
        pool, start the workers, which load the parser while the caller picks files."""
        if pending >= SERIAL_BELOW:
            self.start()

    def start(self) -> None:
        """Start the workers (if there are to be any), each loading the parser."""
        if self._executor is None and self.jobs > 1:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._executor = ProcessPoolExecutor(self.jobs, mp_context=context)
            for _ in range(self.jobs):
                self._executor.submit(_load_parser)

    def run(self, tasks: Sequence[FileTask]) -> Iterator[FileOutcome]:
        work = partial(safe_process, options=self.options)
        if self._executor is None and (self.jobs <= 1 or len(tasks) < SERIAL_BELOW):
            # A pool already started (by an earlier round) costs nothing more to use.
            yield from map(work, tasks)
            return
        self.start()
        assert self._executor is not None
        yield from self._schedule(self._executor, work, tasks)

    def search(
        self,
        function: Callable[[Sequence[T]], list[R]],
        items: Sequence[T],
    ) -> list[R]:
        """``function`` over ``items`` (it takes a batch, and answers one result per item),
        spread over the workers if they are already started."""
        if self._executor is None or not items or len(items) < SEARCH_ALONE_BELOW:
            return function(items)
        size = -(-len(items) // (self.jobs * 4))
        batches = [items[at : at + size] for at in range(0, len(items), size)]
        return [found for batch in self._executor.map(function, batches) for found in batch]

    def _schedule(
        self,
        executor: Executor,
        work: Callable[[FileTask], FileOutcome],
        tasks: Sequence[FileTask],
    ) -> Iterator[FileOutcome]:
        """Largest files first, and never two huge files at once.

        A few big files dominate the time, so starting them early keeps every worker
        busy to the end; but parsing a huge file takes as much memory as the rest of
        the scan, so the workers take turns with those, and the others take the
        smallest files meanwhile.
        """
        sizes = {id(t): _size(t) for t in tasks}
        ordered = sorted(tasks, key=lambda t: sizes[id(t)], reverse=True)
        huge = deque(t for t in ordered if sizes[id(t)] > HUGE_BYTES)
        rest = deque(t for t in ordered if sizes[id(t)] <= HUGE_BYTES)
        running: dict[Future[FileOutcome], bool] = {}  # future -> is it a huge file
        while huge or rest or running:
            while len(running) < self.jobs and (huge or rest):
                beside_huge = any(running.values())
                if huge and not beside_huge:
                    running[executor.submit(work, huge.popleft())] = True
                elif rest:
                    task = rest.pop() if beside_huge else rest.popleft()
                    running[executor.submit(work, task)] = False
                else:
                    break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                del running[future]
                yield future.result()


def _load_parser() -> None:
    import scanner.interpret.wrappers  # noqa: F401  (libcst and the whole analysis)


def _size(task: FileTask) -> int:
    try:
        return task.path.stat().st_size
    except OSError:
        return 0
