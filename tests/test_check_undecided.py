"""KNB008: a knob whose gate the scanner could not decide is never taken as off or as a value;
under policy `default-on` it must be registered, after a person has read the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_knobs, write_tree
from tests.sample_project import check, edit

FLAGS = """
    import os

    from toolkit import parse_flag, str2bool

    FUSED = str2bool(os.environ.get("X_FUSED", "1"))


    def fast_path():
        if parse_flag(os.getenv("X_FAST_PATH")):
            return 1
        return 0
    """

REGISTRY = """
    version: 1
    scan:
      paths: [pkg]
      policy: default-on
    knobs: {}
    """

UNDECIDED = """\
pkg/flags.py:5:18: KNB008 error: X_FUSED is read here, but the scanner cannot decide what its gate does: it goes through str2bool(), which is not followed. It is not registered in registry.yaml, so nothing says whether it is on by default.
    Read the code (`knobs explain X_FUSED`), then register it in registry.yaml under `knobs:` with what you found, and triage it:
      X_FUSED:
        default: "1"
        default_on: null
        undecided: "it goes through str2bool(), which is not followed (pkg/flags.py:5)"
        role:
          proposed: unknown
          reason: "the name X_FUSED says FUSED, a hint of a kernel choice, but no code it reaches shows one: words alone are not evidence"
        triage: untriaged
pkg/flags.py:9:19: KNB008 error: X_FAST_PATH is read here, but the scanner cannot decide what its gate does: it decides a branch through parse_flag(), which is not followed. It is not registered in registry.yaml, so nothing says whether it is on by default.
    Read the code (`knobs explain X_FAST_PATH`), then register it in registry.yaml under `knobs:` with what you found, and triage it:
      X_FAST_PATH:
        default_on: null
        undecided: "it decides a branch through parse_flag(), which is not followed (pkg/flags.py:9)"
        role:
          proposed: unknown
          reason: "nothing in its name, what it feeds or the functions that read it says what it controls"
        triage: untriaged

Found 2 errors: 2 knobs in 2 files checked against registry.yaml (policy default-on).
"""  # noqa: E501


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path, {"pkg/__init__.py": "", "pkg/flags.py": FLAGS, "registry.yaml": REGISTRY}
    )


def test_an_undecided_gate_is_required_under_default_on(root: Path) -> None:
    assert check(root) == (1, UNDECIDED, "")


def test_the_json_report_carries_the_code_and_the_reason(root: Path) -> None:
    result = run_knobs("check", "--format", "json", cwd=root)
    assert result.returncode == 1
    assert '"code": "KNB008"' in result.stdout
    assert "it goes through str2bool(), which is not followed" in result.stdout


def test_registered_as_decided_it_passes_and_stays_decided(root: Path) -> None:
    edit(
        root / "registry.yaml",
        "knobs: {}\n",
        "knobs:\n"
        '  X_FUSED:\n    default: "1"\n    default_on: true\n    triage: untriaged\n'
        "  X_FAST_PATH:\n    default_on: false\n    triage: untriaged\n",
    )
    assert check(root) == (
        0,
        "No problems: 2 knobs in 2 files checked against registry.yaml (policy default-on).\n",
        "",
    )


def test_the_scan_table_shows_a_question_mark_and_the_reason(root: Path) -> None:
    result = run_knobs("scan", "pkg", cwd=root)
    assert result.stdout == (
        "knob         default  on by default?  polarity  role     off value  read in  sites\n"
        + "─" * 91
        + "\n"
        "X_FAST_PATH  -        ?               -         unknown  -          py       "
        "pkg/flags.py:9\n"
        "X_FUSED      '1'      ?               -         unknown  -          py       "
        "pkg/flags.py:5\n"
        "undecided X_FAST_PATH: it decides a branch through parse_flag(), which is not followed "
        "(pkg/flags.py:9)\n"
        "undecided X_FUSED: it goes through str2bool(), which is not followed (pkg/flags.py:5)\n"
        "\n"
        "2 knobs (0 on by default, 2 undecided), 0 dynamic reads, 0 errors; 2 files scanned.\n"
    )


def test_explain_shows_the_reason(root: Path) -> None:
    result = run_knobs("explain", "X_FUSED", cwd=root)
    assert result.stdout.splitlines()[:10] == [
        "X_FUSED",
        "  registry   not registered in registry.yaml (the policy requires it)",
        "  role       not stated; the scan proposes unknown: the name X_FUSED says FUSED, a hint "
        "of a kernel choice, but no code",
        "             it reaches shows one: words alone are not evidence",
        "  profiles   none sets it",
        "",
        "Read at 1 site: undecided (it goes through str2bool(), which is not followed).",
        "",
        "pkg/flags.py:5:18 (in <module>)",
        '  default "1"; on by default: ? (it goes through str2bool(), which is not followed)',
    ]


def test_as_init_writes_it_an_undecided_knob_is_a_note_as_its_header_says(tmp_path: Path) -> None:
    """The header of the registry `knobs init` writes tells what `knobs check` does with an
    undecided knob: a note, and the check passes (it said the check fails on it)."""
    root = write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/flags.py": FLAGS})
    assert run_knobs("init", cwd=root).returncode == 0
    text = (root / "registry.yaml").read_text(encoding="utf-8")
    header = " ".join(line.lstrip("# ") for line in text.splitlines() if line.startswith("#"))
    assert "`knobs check` notes it, without failing, until you have read the code" in header
    done = run_knobs("check", cwd=root)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1].startswith("Found 2 notes: 2 knobs in ")
