"""tests/forked.py gives what the real command gives, and leaves the test process as it was."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from knobregistry.check.codes import RULES
from knobregistry.check.diagnostics import Rule
from knobregistry.profiles.megatron import MegatronMissing, megatron_fields
from tests.conftest import run_knobs, write_tree
from tests.forked import run_forked


@pytest.mark.parametrize(
    "args",
    [("rule", "KNB001"), ("check", "--format", "nope"), ("scan", "missing")],
    ids=["page", "bad-usage", "missing-path"],
)
def test_a_forked_run_gives_the_commands_status_and_output(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    real = run_knobs(*args, cwd=tmp_path)
    forked = run_forked(*args, cwd=tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )


def _rule(code: str) -> Rule:
    return next(rule for rule in RULES if rule.code == code)


@pytest.mark.parametrize("example", ["invalid", "valid"])
def test_a_folder_on_path_provides_its_modules_and_the_test_process_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example: str
) -> None:
    """KNB104's examples hold a stand-in of megatron-core: the child imports it from the
    folder, as the real command finds it first on PYTHONPATH, even where the test process
    has a module of that name (a bare one here, which has no megatron.core) and has cached
    what it found there; the test process's folder, environment, path and modules stay as
    they were."""
    files = getattr(_rule("KNB104").examples, example)
    root = write_tree(tmp_path / "project", dict(files))
    env = {"PYTHONPATH": str(root)}
    real = run_knobs("check", cwd=root, env=env)
    monkeypatch.setitem(sys.modules, "megatron", types.ModuleType("megatron"))
    monkeypatch.setitem(sys.modules, "megatron.core", None)  # import fails, as not installed
    megatron_fields.cache_clear()
    try:
        assert isinstance(megatron_fields(), MegatronMissing)  # cached in the test process
        before = (Path.cwd(), dict(os.environ), list(sys.path), dict(sys.modules))
        forked = run_forked("check", cwd=root, env=env, path=[root])
    finally:
        megatron_fields.cache_clear()
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )
    assert real.returncode == (1 if example == "invalid" else 0), real.stdout
    after = (Path.cwd(), dict(os.environ), list(sys.path), dict(sys.modules))
    assert after[:3] == before[:3]
    assert {n: m for n, m in after[3].items() if n in before[3]} == before[3]
