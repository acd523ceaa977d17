"""The scaffold of a new rule: its module and its test, and nothing overwritten."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.scaffold import REPOSITORY, ScaffoldError, planned, snake, write
from tests.conftest import REPO


def _root(tmp_path: Path) -> Path:
    (tmp_path / "knobregistry" / "check" / "rules").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    return tmp_path


def test_the_scaffold_writes_the_rule_module_and_its_test(tmp_path: Path) -> None:
    root = _root(tmp_path)
    args = ["KNB116", "LauncherPinsThreads", "profiles", "--root", str(root)]
    done = subprocess.run(
        [sys.executable, "-m", "knobregistry.check.scaffold", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        "Wrote knobregistry/check/rules/launcher_pins_threads.py",
        "Wrote tests/test_rule_launcher_pins_threads.py",
        "Fill in its TODOs; its `section` is its docs, under `### KNB116 LauncherPinsThreads`.",
    ]
    module = root / "knobregistry/check/rules/launcher_pins_threads.py"
    spec = importlib.util.spec_from_file_location("scaffolded", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    rule = loaded.KNB116
    assert isinstance(rule, Rule)
    assert (rule.code, rule.name, rule.family, rule.page) == (
        "KNB116",
        "LauncherPinsThreads",
        Family.PROFILES,
        "profiles.md",
    )
    assert loaded.run(None) == []  # reports nothing until its check is written
    test = (root / "tests/test_rule_launcher_pins_threads.py").read_text(encoding="utf-8")
    assert "from knobregistry.check.rules.launcher_pins_threads import KNB116" in test
    ast.parse(test)
    # what it writes is clean for ruff, as the repository's own files are
    ruff = Path(sys.executable).with_name("ruff")
    lint = [str(ruff), "check", "--no-cache", "--config", str(REPO / "pyproject.toml")]
    lint += ["--config", "lint.isort.known-first-party = ['knobregistry', 'scanner', 'tests']"]
    written = [str(module), str(root / "tests/test_rule_launcher_pins_threads.py")]
    checked = subprocess.run([*lint, *written], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout


def test_the_scaffold_refuses_a_taken_code_a_bad_name_and_an_unknown_family(
    tmp_path: Path,
) -> None:
    cases = [
        (("KNB001", "NewRule", "inventory"), "KNB001 UnregisteredKnob is declared already."),
        (("KNB116", "StaleKnob", "inventory"), "KNB002 StaleKnob is declared already."),
        (("KNB16", "NewRule", "inventory"), "KNB16 is not a code: KNB and three digits (KNB116)."),
        (("KNB116", "rule", "inventory"), "rule is not a CamelCase name of two words or more."),
        (
            ("KNB116", "NewRule", "nowhere"),
            "nowhere is no family; one of: inventory, triage, profiles, waivers, baseline, docs.",
        ),
    ]
    for args, message in cases:
        with pytest.raises(ScaffoldError) as caught:
            planned(*args, root=tmp_path)
        assert str(caught.value) == message


def test_the_scaffold_overwrites_nothing(tmp_path: Path) -> None:
    root = _root(tmp_path)
    files = planned("KNB116", "LauncherPinsThreads", "profiles", root)
    test = next(path for path in files if path.parent.name == "tests")
    test.write_text("mine\n", encoding="utf-8")
    with pytest.raises(ScaffoldError, match="exists; the scaffold overwrites nothing"):
        write(files)
    assert test.read_text(encoding="utf-8") == "mine\n"
    assert not (root / "knobregistry/check/rules/launcher_pins_threads.py").exists()


def test_names_and_the_repository() -> None:
    assert snake("LauncherPinsThreads") == "launcher_pins_threads"
    assert REPOSITORY == REPO
