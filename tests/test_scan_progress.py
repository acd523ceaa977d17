"""Progress: `knobs scan`, `init`, `check` and `trace` count the files their scan has done
on standard error when it is a terminal, and show nothing when it is not."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

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


def test_piped_output_has_no_progress_and_is_unchanged(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    piped = run_knobs("scan", "src", "-f", "json", cwd=root)
    assert (piped.returncode, piped.stderr) == (0, "")
    again = run_knobs("scan", "src", "-f", "json", cwd=root)
    assert again.stdout == piped.stdout
    code, stdout, shown = _on_a_terminal(["scan", "src", "-f", "json"], root, tmp_path / "c2")
    assert (code, stdout) == (0, piped.stdout)  # the terminal's progress never reaches stdout
    assert f"{FILES} of {FILES} files" in shown
