"""Running file tasks: in this process for small batches, in a process pool otherwise.

As LibCST's codemod runner does it: serial for a handful of files, a pool sized
to the machine for more, started with ``fork`` where the platform has it so the
workers inherit the already-imported parser. Outcomes are streamed back.

A serial scan (one job, or a handful of files) still analyses each huge file in a
process of its own, so that a crash there is that file's error, not the scan's end.
A worker that dies (a crash in native code, the out-of-memory killer) breaks the
whole pool: the files it was analysing are then analysed again one at a time, each
in a pool of its own, so that the one that kills its worker again becomes that
file's error, and a new pool takes the rest.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

from scanner.model import ScanError
from scanner.run.readers import process
from scanner.run.work import FileOutcome, FileTask, Options

if TYPE_CHECKING:
    # Imported where a pool is started: a warm scan starts none, and needs none of them.
    import multiprocessing.context
    from concurrent.futures import Executor, Future

SERIAL_BELOW = 24  # fewer tasks than this are not worth starting workers for
HUGE_BYTES = 512 * 1024  # files this large are parsed by one worker at a time
SEARCH_ALONE_BELOW = 512  # fewer files than this are searched in this process
WORKER_DIED = (
    "The process analysing this file died (a crash in the parser, such as a stack "
    "overflow, or the out-of-memory killer); the file is not analysed."
)
INTERNAL_ERROR = "Internal error while analysing this file"
T = TypeVar("T")
R = TypeVar("R")


JOBS_PER_CPU = 4  # the most worker processes a scan starts per CPU: more only compete


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def bounded_jobs(jobs: int | None) -> int:
    """The worker processes a scan starts for ``jobs`` (the CPUs when None): bounded
    whatever the caller asks, as a process per job is made."""
    return min(jobs, JOBS_PER_CPU * default_jobs()) if jobs is not None else default_jobs()


def safe_process(task: FileTask, options: Options) -> FileOutcome:
    """``process``, with an unexpected failure turned into that file's error."""
    try:
        return process(task, options)
    except Exception as exc:  # a scanner bug must not sink the whole scan
        message = f"{INTERNAL_ERROR} ({type(exc).__name__}: {exc})."
        return FileOutcome(rel=task.rel, error=ScanError(task.rel, message))


class Runner:
    """Runs batches of tasks, keeping one pool for the whole scan."""

    def __init__(self, options: Options, jobs: int | None = None) -> None:
        self.options = options
        # Bounded whatever the caller asks: a process per job is made below.
        self.jobs = bounded_jobs(jobs)
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

    def _context(self) -> multiprocessing.context.BaseContext:
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        return multiprocessing.get_context("fork" if "fork" in methods else None)

    def prepare(self, pending: int) -> None:
        """Told that ``pending`` tasks are waiting so far: once they are enough for the
        pool, start the workers, which load the parser while the caller picks files."""
        if pending >= SERIAL_BELOW:
            self.start()

    def start(self) -> None:
        """Start the workers (if there are to be any), each loading the parser."""
        if self._executor is None and self.jobs > 1:
            from concurrent.futures import ProcessPoolExecutor

            self._executor = ProcessPoolExecutor(self.jobs, mp_context=self._context())
            for _ in range(self.jobs):
                self._executor.submit(_load_parser)

    def run(self, tasks: Sequence[FileTask]) -> Iterator[FileOutcome]:
        work = partial(safe_process, options=self.options)
        if self._executor is None and (self.jobs <= 1 or len(tasks) < SERIAL_BELOW):
            # A pool already started (by an earlier round) costs nothing more to use.
            # Serially, a huge file still goes to a process of its own: what kills that
            # process (the out-of-memory killer, a crash in the parser) is its error only.
            for task in tasks:
                yield self._alone(work, task) if _size(task) > HUGE_BYTES else work(task)
            return
        self.start()
        assert self._executor is not None
        yield from self.schedule(self._executor, work, tasks)

    def search(
        self,
        function: Callable[[Sequence[T]], list[R]],
        items: Sequence[T],
    ) -> list[R]:
        """``function`` over ``items`` (it takes a batch, and answers one result per item),
        spread over the workers if they are already started."""
        if self._executor is None or not items or len(items) < SEARCH_ALONE_BELOW:
            return function(items)
        from concurrent.futures.process import BrokenProcessPool

        size = -(-len(items) // (self.jobs * 4))
        batches = [items[at : at + size] for at in range(0, len(items), size)]
        try:
            return [found for batch in self._executor.map(function, batches) for found in batch]
        except BrokenProcessPool:
            self._restart()
            return function(items)

    def schedule(
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
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        sizes = {id(t): _size(t) for t in tasks}
        ordered = sorted(tasks, key=lambda t: sizes[id(t)], reverse=True)
        huge = deque(t for t in ordered if sizes[id(t)] > HUGE_BYTES)
        rest = deque(t for t in ordered if sizes[id(t)] <= HUGE_BYTES)
        running: dict[Future[FileOutcome], tuple[bool, FileTask]] = {}  # is it huge, task
        while huge or rest or running:
            while len(running) < self.jobs and (huge or rest):
                beside_huge = any(is_huge for is_huge, _ in running.values())
                if huge and not beside_huge:
                    task = huge.popleft()
                    running[executor.submit(work, task)] = (True, task)
                elif rest:
                    task = rest.pop() if beside_huge else rest.popleft()
                    running[executor.submit(work, task)] = (False, task)
                else:
                    break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            lost = False
            for future in done:
                _, task = running.pop(future)
                try:
                    yield future.result()
                except BrokenProcessPool:
                    lost = True
                    yield self._alone(work, task)
            if lost:
                # Every file the broken pool held is lost with it: each alone, then a new pool.
                suspects = [task for _, task in running.values()]
                running.clear()
                for task in suspects:
                    yield self._alone(work, task)
                executor = self._restart()

    def _alone(self, work: Callable[[FileTask], FileOutcome], task: FileTask) -> FileOutcome:
        """``work(task)`` in a pool of its own: its error, when that kills the worker too."""
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        single = ProcessPoolExecutor(1, mp_context=self._context())
        try:
            return single.submit(work, task).result()
        except BrokenProcessPool:
            return FileOutcome(rel=task.rel, error=ScanError(task.rel, WORKER_DIED))
        finally:
            single.shutdown(cancel_futures=True)

    def _restart(self) -> Executor:
        """A new pool in place of a broken one."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        self.start()
        assert self._executor is not None
        return self._executor


def _load_parser() -> None:
    # libcst and the whole analysis, loaded once per worker before its first file
    import scanner.interpret.analyze
    import scanner.interpret.wrappers  # noqa: F401


def _size(task: FileTask) -> int:
    try:
        return task.path.stat().st_size
    except OSError:
        return 0
