"""The pre-commit hook: whole project, serial, running the real `knobs check`."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import REPO, run_knobs
from tests.sample_project import append, project


def hooks() -> list[dict[str, Any]]:
    data = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def test_the_knobs_check_hook() -> None:
    (hook,) = hooks()
    assert hook["id"] == "knobs-check"
    assert hook["entry"] == "knobs check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False  # the whole project, not the staged files
    assert hook["require_serial"] is True
    assert set(hook["types_or"]) == {"python", "yaml", "markdown", "toml"}
    assert {"name", "description"} <= set(hook)


def test_the_hook_entry_is_the_check(tmp_path: Path) -> None:
    """What pre-commit runs: the entry, with no file names, in the repository root."""
    (hook,) = hooks()
    command, *args = shlex.split(hook["entry"])
    assert command == "knobs"
    root = project(tmp_path)
    assert run_knobs(*args, cwd=root).returncode == 0
    append(root)
    failed = run_knobs(*args, cwd=root)
    assert failed.returncode == 1
    assert failed.stdout.startswith("pkg/model.py:9:7: KNB001 error: PRIMUS_NEW_TRITON")
