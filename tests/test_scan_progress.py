"""Progress: `knobs scan`, `init`, `check` and `trace` count the files their scan has done
on standard error: drawn on a terminal; piped, a line every few seconds once the scan has
taken that long (a quick scan says nothing)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from knobregistry._text import progress
from scanner import scan
from tests.conftest import run_knobs, write_tree
from tests.terminal import on_a_terminal

FILES = 30  # enough for the scan to start its workers
REGISTRY = "version: 1\nscan: {paths: [src]}\nknobs: {}\n"


def _project(root: Path) -> Path:
    files = {
        f"src/m{i:02}.py": f'import os\nA{i} = os.environ.get("X_{i}", "1")\n' for i in range(FILES)
    }
    return write_tree(root, {**files, "registry.yaml": REGISTRY})


def test_the_scan_reports_every_file_done_once(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "src" / "notes.py").write_text("print('no read here')\n", encoding="utf-8")
    ticks: list[tuple[int, int]] = []
    result = scan([root / "src"], root=root, jobs=2, progress=lambda d, t: ticks.append((d, t)))
    assert len(result.knobs) == FILES
    assert ticks == [(done, FILES + 1) for done in range(FILES + 2)]


def _on_a_terminal(args: list[str], cwd: Path, cache: Path) -> tuple[int, str, str]:
    environment = {**os.environ, "TERM": "xterm", "COLUMNS": "120", "KNOBS_CACHE_DIR": str(cache)}
    environment.pop("NO_COLOR", None)
    return on_a_terminal([sys.executable, "-m", "knobregistry", *args], cwd, environment)


@pytest.mark.parametrize(
    ("args", "label"),
    [
        (["scan", "src"], "knobs: scanning src"),
        (["init", "src", "-o", "new.yaml"], "knobs: scanning src"),
        (["check"], "knobs: scanning src"),
        (["trace", "--", sys.executable, "-c", "pass"], "knobs: scanning src"),
    ],
    ids=["scan", "init", "check", "trace"],
)
def test_a_terminal_is_shown_the_files_done(tmp_path: Path, args: list[str], label: str) -> None:
    root = _project(tmp_path / "proj")
    code, _, shown = _on_a_terminal(args, root, tmp_path / "cache")
    assert code in (0, 1), shown
    assert label in shown
    assert f"{FILES} of {FILES} files" in shown


def test_piped_output_is_unchanged_by_progress(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    piped = run_knobs("scan", "src", "-f", "json", cwd=root)
    assert (piped.returncode, piped.stderr) == (0, "")
    again = run_knobs("scan", "src", "-f", "json", cwd=root)
    assert again.stdout == piped.stdout
    code, stdout, shown = _on_a_terminal(["scan", "src", "-f", "json"], root, tmp_path / "c2")
    assert (code, stdout) == (0, piped.stdout)  # the terminal's progress never reaches stdout
    assert f"{FILES} of {FILES} files" in shown


@pytest.mark.parametrize(
    "args",
    [["scan", "src"], ["init", "src", "-o", "new.yaml"], ["check"]],
    ids=["scan", "init", "check"],
)
def test_piped_the_count_goes_to_stderr_as_lines(tmp_path: Path, args: list[str]) -> None:
    """With KNOBS_PROGRESS_SECONDS=0 every count is a line; by default one every 5 s."""
    root = _project(tmp_path / "proj")
    done = run_knobs(*args, cwd=root, env={"KNOBS_PROGRESS_SECONDS": "0"})
    assert done.returncode in (0, 1), done.stderr
    lines = [f"knobs: scanning src: {n} of {FILES} files" for n in range(FILES + 1)]
    assert done.stderr.splitlines() == lines


def test_a_line_every_few_seconds_the_first_once_it_took_that_long(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = iter([0.0, 1.0, 4.0, 5.5, 6.0, 9.0, 11.0, 12.0])
    monkeypatch.setattr("knobregistry._text.progress.time.monotonic", lambda: next(clock))
    reporter = progress.line_reporter(5.0)
    with reporter.count("scanning torch", "files") as tick:
        for done in range(7):  # at 1, 4, 5.5, 6, 9, 11 and 12 s
            tick(done, 6)
    assert capsys.readouterr().err == (
        "knobs: scanning torch: 2 of 6 files\n"  # 5.5 s: the first line
        "knobs: scanning torch: 5 of 6 files\n"  # 11 s: 5 s after it
        "knobs: scanning torch: 6 of 6 files\n"  # done: the last
    )


@pytest.mark.parametrize(
    ("setting", "seconds"), [("", 5.0), ("0", 0.0), ("2.5", 2.5), ("-1", 5.0), ("soon", 5.0)]
)
def test_the_interval_is_5_seconds_unless_set(
    monkeypatch: pytest.MonkeyPatch, setting: str, seconds: float
) -> None:
    monkeypatch.setenv("KNOBS_PROGRESS_SECONDS", setting)
    assert progress._line_seconds() == seconds
