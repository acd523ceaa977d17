"""The project's scanner settings (`launch_facts`, `accessors`) reach every scan: from the
registry's `scan` section, and from `[tool.knobs]` in pyproject.toml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knobregistry.project.scan_for import settings_for
from knobregistry.project.trainer_types import trainer_config_types
from knobregistry.registry.pyproject import project_settings
from scanner import Settings
from scanner.settings import DEFAULT_INCLUDE, ENV_BLOCKS
from tests.conftest import run_knobs, write_tree
from tests.sample_project import check, edit

LAUNCHER = """
    import os

    ELASTIC = os.environ.get("MYLAUNCHER_ELASTIC", "1") != "0"
    HC = os.environ.get("X_HC_TRITON", "1") != "0"
    """

REGISTRY = """
    version: 1
    scan:
      paths: [pkg]
      policy: default-on
    knobs:
      X_HC_TRITON:
        default: "1"
        default_on: true
        triage: untriaged
    """

NOT_A_FACT = (
    "pkg/launch.py:3:11: KNB001 error: MYLAUNCHER_ELASTIC is not registered in registry.yaml: it "
    "is on "
    'by default ("0" turns it off) and read here.\n'
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the repository root: no pyproject.toml above it is read
    return write_tree(
        tmp_path, {"pkg/__init__.py": "", "pkg/launch.py": LAUNCHER, "registry.yaml": REGISTRY}
    )


def test_registry_launch_facts_reach_check_scan_and_explain(root: Path) -> None:
    assert check(root)[1].startswith(NOT_A_FACT)
    edit(
        root / "registry.yaml",
        "  policy: default-on\n",
        "  launch_facts: [MYLAUNCHER_*]\n  policy: default-on\n",
    )
    assert check(root) == (
        0,
        "No problems: 2 knobs in 2 files checked against registry.yaml (policy default-on).\n",
        "",
    )
    explained = run_knobs("explain", "MYLAUNCHER_ELASTIC", cwd=root).stdout
    assert '  default "1"; a launch fact (set by the launcher, not a switch)\n' in explained


def test_pyproject_launch_facts_reach_check_and_scan(root: Path) -> None:
    scanned = json.loads(run_knobs("scan", "pkg", "-f", "json", cwd=root).stdout)
    assert [k["kind"] for k in scanned["knobs"]] == ["boolean", "boolean"]
    (root / "pyproject.toml").write_text(
        '[tool.knobs]\nlaunch_facts = ["MYLAUNCHER_*"]\n', encoding="utf-8"
    )
    scanned = json.loads(run_knobs("scan", "pkg", "-f", "json", cwd=root).stdout)
    assert [(k["name"], k["kind"]) for k in scanned["knobs"]] == [
        ("MYLAUNCHER_ELASTIC", "launch"),
        ("X_HC_TRITON", "boolean"),
    ]
    assert check(root)[0] == 0
    table = run_knobs("scan", "pkg", cwd=root).stdout
    assert "MYLAUNCHER_ELASTIC  '1'      launch          -         fact" in table


def test_init_reads_the_pyproject_settings(root: Path) -> None:
    (root / "pyproject.toml").write_text(
        '[tool.knobs]\nlaunch_facts = ["MYLAUNCHER_*"]\n', encoding="utf-8"
    )
    assert run_knobs("init", "pkg", "-o", "new.yaml", cwd=root).returncode == 0
    text = (root / "new.yaml").read_text(encoding="utf-8")
    assert "  MYLAUNCHER_ELASTIC:\n    # a launch fact (set by the launcher, not a switch)" in text


def test_settings_merge_registry_first_and_read_the_nearest_pyproject(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.knobs]\naccessors = ["read_knob"]\n',
            "sub/pyproject.toml": '[project]\nname = "sub"\n',  # no [tool.knobs]: skipped
        },
    )
    found = project_settings(tmp_path / "sub")
    assert found == Settings(include=(), accessors=("read_knob",), env_blocks=())
    scope = Settings(launch_facts=("A_*",), accessors=("read_knob", "other"), env_blocks=())
    merged = settings_for(scope, found)
    assert (merged.launch_facts, merged.accessors) == (("A_*",), ("read_knob", "other"))
    assert (merged.include, merged.env_blocks) == (DEFAULT_INCLUDE, ENV_BLOCKS)
    assert dict(merged.config_types) == dict(trainer_config_types())


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            '[tool.knobs]\nlaunch_facts = "X_*"\n',
            '[tool.knobs] launch_facts must be a list of strings, such as ["MYLAUNCHER_*"].',
        ),
        (
            '[tool.knobs]\naccessors = ["mod.read_knob"]\n',
            "[tool.knobs] accessors: 'mod.read_knob' is not a name; give the name the callable "
            "is called by, without its module (read_knob).",
        ),
    ],
)
def test_bad_pyproject_settings_exit_2(root: Path, toml: str, message: str) -> None:
    (root / "pyproject.toml").write_text(toml, encoding="utf-8")
    assert check(root) == (
        2,
        "",
        f"pyproject.toml: {message}\n".replace(
            "pyproject.toml:", f"{(root / 'pyproject.toml').as_posix()}:"
        ),
    )
    scanned = run_knobs("scan", "pkg", cwd=root)
    assert (scanned.returncode, scanned.stdout) == (2, "")
    assert scanned.stderr.endswith(f"{message}\n")


def test_registry_accessors_must_be_names(root: Path) -> None:
    edit(
        root / "registry.yaml",
        "  policy: default-on\n",
        "  accessors: [mod.read_knob]\n  policy: default-on\n",
    )
    code, out, err = check(root)
    assert (code, out) == (2, "")
    assert err == (
        "registry.yaml:4:15: scan.accessors[0]: 'mod.read_knob' is not valid here: an accessor "
        "is the name it is called by, letters, digits and underscores (read_knob), without its "
        "module\n"
    )


READER = """
    from toolkit import read_knob

    FUSED = read_knob("X_READ_FUSED", "1") != "0"
    """


def test_registry_accessors_reach_the_scanner(root: Path) -> None:
    (root / "pkg/reader.py").write_text(READER.replace("\n    ", "\n").lstrip(), encoding="utf-8")
    assert "X_READ_FUSED" not in check(root)[1]  # read_knob is no getenv: not a read
    edit(
        root / "registry.yaml",
        "  policy: default-on\n",
        "  launch_facts: [MYLAUNCHER_*]\n  accessors: [read_knob]\n  policy: default-on\n",
    )
    assert check(root) == (
        1,
        "pkg/reader.py:3:9: KNB001 error: X_READ_FUSED is not registered in registry.yaml: it is "
        "on "
        'by default ("0" turns it off) and read here.\n'
        "    Register it in registry.yaml under `knobs:`, then triage it:\n"
        "      X_READ_FUSED:\n"
        '        default: "1"\n'
        "        default_on: true\n"
        "        role:\n"
        "          proposed: unknown\n"
        '          reason: "the name X_READ_FUSED says FUSED'
        ", a hint of a kernel choice, but no code it reaches"
        ' shows one: words alone are not evidence"\n'
        "        triage: untriaged\n"
        "\n"
        "Found 1 error: 3 knobs in 3 files checked against registry.yaml (policy default-on).\n",
        "",
    )


def test_pyproject_accessors_reach_scan_and_check(root: Path) -> None:
    (root / "pkg/reader.py").write_text(READER.replace("\n    ", "\n").lstrip(), encoding="utf-8")
    assert "X_READ_FUSED" not in run_knobs("scan", "pkg", cwd=root).stdout
    (root / "pyproject.toml").write_text(
        '[tool.knobs]\naccessors = ["read_knob"]\n', encoding="utf-8"
    )
    table = run_knobs("scan", "pkg", cwd=root).stdout
    assert "X_READ_FUSED        '1'      yes             enable    unknown  '0'" in table
    assert "KNB001 error: X_READ_FUSED is not registered" in check(root)[1]
