"""`knobs rule`: one code's page from the code table, the list of codes, a did-you-mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_knobs

KNB001 = """\
KNB001 UnregisteredKnob (error)

A knob the code reads is not registered.

The scan found a knob that the registry's policy requires to be registered (every knob
under policy `all`; under policy `default-on`, knobs whose feature is on by default: on
by default, or a `disable` knob off by default), and neither `knobs` nor `external` in
the registry names it. Reported at the knob's first site.

Example:
    # pkg/model.py (PRIMUS_NEW_TRITON is in neither `knobs` nor `external`)
    NEW = os.environ.get("PRIMUS_NEW_TRITON", "1") != "0"

Fix:
    Add the YAML entry that the fix shows under `knobs:` in the registry (it is
    prefilled from the scan and starts `untriaged`), then fill in what it gates and
    triage it.

Documented in docs/checks.md#knb001-unregisteredknob
"""

KNB202 = """\
KNB202 WaiverWithoutOwner (warning)

A waiver names no owner.

An entry with an `expires` date names no `owner`, so nobody is asked to triage the knob
when the waiver runs out. A warning: it does not fail the check.

Example:
    PRIMUS_FP8:
      triage: exempt
      reason: The FP8 path is being rewritten.
      expires: 2026-06-30    # and no `owner:`

Fix:
    Add `owner:` (a person, a team or a handle) to the entry.

Documented in docs/waivers.md#knb202-waiverwithoutowner
"""


def test_one_rule_page(tmp_path: Path) -> None:
    # The page at 88 columns; tests/test_table_widths.py lays it out at 80 and 120.
    done = run_knobs("rule", "KNB001", cwd=tmp_path, env={"COLUMNS": "88"})
    assert (done.returncode, done.stdout, done.stderr) == (0, KNB001, "")


def test_a_rule_by_its_name_or_in_lower_case(tmp_path: Path) -> None:
    at_88 = {"COLUMNS": "88"}
    assert run_knobs("rule", "waiverwithoutowner", cwd=tmp_path, env=at_88).stdout == KNB202
    assert run_knobs("rule", "knb202", cwd=tmp_path, env=at_88).stdout == KNB202


def test_a_reserved_code_says_it_is_a_registry_error(tmp_path: Path) -> None:
    done = run_knobs("rule", "KNB005", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == (
        "KNB005 ExemptWithoutReason (a registry error, reported when the registry loads)"
    )


def test_without_a_code_every_code_is_listed(tmp_path: Path) -> None:
    # Wide enough for one line per code: tests/test_table_widths.py wraps them.
    done = run_knobs("rule", cwd=tmp_path, env={"COLUMNS": "200"})
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and len(lines) == 29
    assert lines[0] == (
        "KNB001  UnregisteredKnob               error             "
        "A knob the code reads is not registered."
    )
    assert lines[4].startswith("KNB005  ExemptWithoutReason            (registry error)  ")
    assert [line[:6] for line in lines][-5:] == ["KNB201", "KNB202", "KNB203", "KNB204", "KNB205"]


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("KNB01", " Did you mean KNB001?"),  # a zero left out
        ("knb2o3", " Did you mean KNB203?"),  # a letter O for a zero
        ("KNB1O9", " Did you mean KNB109?"),
        ("KNB0101", " Did you mean KNB101?"),  # a zero too many
        ("UnregisteredKnb", " Did you mean UnregisteredKnob?"),
        ("KNB999", ""),  # no code is one slip away: no guess (it was KNB109)
        ("KNB099", " Did you mean KNB009?"),
        ("KNB00", ""),  # nine codes are one slip away: no guess
    ],
)
def test_an_unknown_code_exits_2_with_a_suggestion(tmp_path: Path, typed: str, hint: str) -> None:
    done = run_knobs("rule", typed, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"Error: {typed} is no code of knobs check; `knobs rule` lists them.{hint}\n",
    )


@pytest.mark.parametrize(
    ("typed", "hint"), [("scna", " Did you mean 'scan'?"), ("Check", " Did you mean 'check'?")]
)
def test_a_mistyped_command_names_the_command_it_meant(
    tmp_path: Path, typed: str, hint: str
) -> None:
    done = run_knobs(typed, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == f"Error: No such command {typed!r}.{hint}"


def test_help(tmp_path: Path) -> None:
    done = run_knobs("rule", "--help", cwd=tmp_path, env={"COLUMNS": "80"})
    assert done.returncode == 0
    assert done.stdout.splitlines()[0].endswith(" rule [OPTIONS] [CODE]")
    flat = " ".join(done.stdout.split())
    assert "Explain a code of `knobs check` (KNB001, or its name, UnregisteredKnob)." in flat
    assert "without CODE, lists every code with its name, severity and summary" in flat
    listed = " ".join(run_knobs("--help", cwd=tmp_path, env={"COLUMNS": "80"}).stdout.split())
    assert "rule Explain a code of `knobs check` (KNB001, or its name, UnregisteredKnob)." in listed
