"""What a triage shows while it runs, on stderr: a rich progress bar, or plain lines."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from knobregistry.registry import Sweep
from knobregistry.triage.model import Outcome


class ConsoleProgress:
    """A live bar per sweep on a terminal; elsewhere, one line per judged setting."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live = console.is_terminal
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self.task: TaskID | None = None

    def __enter__(self) -> ConsoleProgress:
        if self.live:
            self.bar.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self.live:
            self.bar.stop()

    def phase(self, sweep: Sweep, settings: int, runs: int | None) -> None:
        if not self.live:
            return
        if self.task is not None:
            self.bar.update(self.task, visible=False)
        self.task = self.bar.add_task(f"{sweep.value} runs", total=runs)

    def run_done(self) -> None:
        if self.live and self.task is not None:
            self.bar.advance(self.task)

    def outcome(self, outcome: Outcome) -> None:
        setting = outcome.setting
        label = f"{setting.sweep.value}: {setting.label}" if setting.knobs else setting.label
        line = f"{label}: {outcome.verdict.value}"
        if self.live:
            self.bar.console.print(f"  {escape(line)}", highlight=False)
        else:
            self.console.print(f"knobs triage: {escape(line)}", highlight=False)
