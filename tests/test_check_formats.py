"""Every output format of `knobs check`: golden text, JSON and workflow commands; valid SARIF."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator
from rich.console import Console

from knobregistry.check.codes import RULES
from knobregistry.check.diagnostics import Diagnostic, Example, Family, Rule, Severity
from knobregistry.check.family_check import Check, Context
from knobregistry.check.inventory import INVENTORY
from knobregistry.check.run import run_check
from knobregistry.registry import load_registry
from knobregistry.report.check_sarif import check_to_sarif
from knobregistry.report.check_text import print_check_rich, render_check_text
from tests.conftest import run_knobs
from tests.sample_project import edit, project

SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json"
LOOP = 'import os\n\nfor kind in open("kinds"):\n    os.environ.get(f"PRIMUS_{kind}")\n'


@pytest.fixture
def drifted(tmp_path: Path) -> Path:
    """A finding of each kind a check reports: KNB001, 002, 006, 007 (with and without a line)."""
    root = project(
        tmp_path,
        pkg__zz_py='import os\nZ = os.environ.get("PRIMUS_Z", "1") != "0"\n',
        pkg__loop_py=LOOP,
    )
    edit(root / "pkg/model.py", 'ROPE = env_flag("PRIMUS_ROPE_TRITON")\n', "")
    (root / "pkg/bad.py").write_bytes(b'import os\nx = os.environ.get("\xff")\n')
    (root / "pkg/dangling.py").symlink_to("nowhere.py")
    return root


TEXT = """\
pkg/bad.py:2:1: KNB007 error: This file could not be scanned, so its knobs are not checked: \
Cannot decode \
byte 0xff on line 2 as utf-8 (the default encoding); add a '# -*- coding: ... -*-' line naming the \
file's encoding, or convert it to UTF-8.
    If the file is yours, fix it. If it is code you do not edit (a vendored or installed \
library), leave it out of the scan in registry.yaml:
      scan:
        exclude:
          - "pkg/bad.py"
pkg/dangling.py: KNB007 error: This file could not be scanned, so its knobs are not checked: \
Cannot read \
the file: No such file or directory.
    If the file is yours, fix it. If it is code you do not edit (a vendored or installed \
library), leave it out of the scan in registry.yaml:
      scan:
        exclude:
          - "pkg/dangling.py"
pkg/loop.py:4:5: KNB006 warning: The variable read by `os.environ.get(f"PRIMUS_{kind}")` cannot be \
resolved (the name is built at run time from values not known statically), so registry.yaml cannot \
register it.
    Name the variable with a string literal or a module-level constant, so that the knob can be \
registered.
pkg/zz.py:2:5: KNB001 error: PRIMUS_Z is not registered in registry.yaml: it is on by default \
("0" turns \
it off) and read here.
    Register it in registry.yaml under `knobs:`, then triage it:
      PRIMUS_Z:
        default: "1"
        default_on: true
        role:
          proposed: unknown
          reason: "nothing in its name, what it feeds or the functions that read it says what \
it controls"
        triage: untriaged
registry.yaml:15:3: KNB002 error: PRIMUS_ROPE_TRITON is registered, but no code in the scan scope \
reads it.
    Remove the entry if the gate is gone; if the code moved, widen scan.paths; if only a library \
reads it, move the entry under `external`.

Found 4 errors and 1 warning: 4 knobs in 7 files checked against registry.yaml (policy all).
"""

GITHUB = """\
::error file=pkg/bad.py,line=2,title=KNB007::This file could not be scanned, so its knobs are not \
checked: Cannot decode byte 0xff on line 2 as utf-8 (the default encoding); add a '# -*- coding: \
... -*-' line naming the file's encoding, or convert it to UTF-8.%0AIf the file is yours, fix it. \
If it \
is code you do not edit (a vendored or installed library), leave it out of the scan in \
registry.yaml:\
%0A  scan:%0A    exclude:%0A      - "pkg/bad.py"
::error file=pkg/dangling.py,title=KNB007::This file could not be scanned, so its knobs are not \
checked: Cannot read the file: No such file or directory.%0AIf the file is yours, fix it. If it is \
code you do not edit (a vendored or installed library), leave it out of the scan in registry.yaml:\
%0A  scan:%0A    exclude:%0A      - "pkg/dangling.py"
::warning file=pkg/loop.py,line=4,col=5,title=KNB006::The variable read by \
`os.environ.get(f"PRIMUS_{kind}")` cannot be resolved (the name is built at run time from values \
not known statically), so registry.yaml cannot register it.%0AName the variable with a string \
literal or a module-level constant, so that the knob can be registered.
::error file=pkg/zz.py,line=2,col=5,title=KNB001::PRIMUS_Z is not registered in registry.yaml: it \
is on by default ("0" turns it off) and read here.%0ARegister it in registry.yaml under `knobs:`, \
then triage it:%0A  PRIMUS_Z:%0A    default: "1"%0A    default_on: true%0A    role:%0A      \
proposed: unknown%0A      reason: "nothing in its name, what it feeds or the functions that \
read it says what it controls"%0A    \
triage: untriaged
::error file=registry.yaml,line=15,col=3,title=KNB002::PRIMUS_ROPE_TRITON is registered, but no \
code in the scan scope reads it.%0ARemove the entry if the gate is gone; if the code moved, widen \
scan.paths; if only a library reads it, move the entry under `external`.
"""


def test_text_golden(drifted: Path) -> None:
    result = run_knobs("check", cwd=drifted)
    assert (result.returncode, result.stdout, result.stderr) == (1, TEXT, "")


def test_github_golden(drifted: Path) -> None:
    result = run_knobs("check", "--format", "github", cwd=drifted)
    assert (result.returncode, result.stdout, result.stderr) == (1, GITHUB, "")


def test_github_escapes_properties_and_data(tmp_path: Path) -> None:
    root = project(tmp_path, **{"pkg__a,b:c_py": 'import os\nZ = os.environ.get("PRIMUS_Z")\n'})
    out = run_knobs("check", "-f", "github", cwd=root).stdout
    assert out.startswith("::error file=pkg/a%2Cb%3Ac.py,line=2,col=5,title=KNB001::PRIMUS_Z ")


def test_github_registry_problems_are_annotations(tmp_path: Path) -> None:
    root = project(tmp_path, "version: 1\nscan:\n  policy: some\n")
    result = run_knobs("check", "-f", "github", cwd=root)
    assert (result.returncode, result.stdout) == (
        2,
        "::error file=registry.yaml,line=3,col=3,title=registry::scan.policy: expected one of "
        "'all', 'default-on', got 'some'\n",
    )


def test_json_golden(drifted: Path) -> None:
    result = run_knobs("check", "--format", "json", cwd=drifted)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert {k: v for k, v in document.items() if k != "diagnostics"} == {
        "version": 1,
        "registry": "registry.yaml",
        "policy": "all",
        "paths": ["pkg"],
        "stale_checked": True,
        "summary": {
            "status": "drift",
            "errors": 4,
            "warnings": 1,
            "notes": 0,
            "knobs": 4,
            "files": 7,
        },
    }
    assert document["diagnostics"][3] == {
        "code": "KNB001",
        "severity": "error",
        "path": "pkg/zz.py",
        "line": 2,
        "column": 5,
        "knob": "PRIMUS_Z",
        "message": 'PRIMUS_Z is not registered in registry.yaml: it is on by default ("0" turns '
        "it off) and read here.",
        "fix": "Register it in registry.yaml under `knobs:`, then triage it:\n  PRIMUS_Z:\n"
        '    default: "1"\n    default_on: true\n    role:\n      proposed: unknown\n'
        '      reason: "nothing in its name, what it feeds or the functions that read it says '
        'what it controls"\n'
        "    triage: untriaged",
    }
    located = [(d["code"], d["path"], d["line"], d["column"]) for d in document["diagnostics"]]
    assert located == [
        ("KNB007", "pkg/bad.py", 2, 0),
        ("KNB007", "pkg/dangling.py", 0, 0),
        ("KNB006", "pkg/loop.py", 4, 5),
        ("KNB001", "pkg/zz.py", 2, 5),
        ("KNB002", "registry.yaml", 15, 3),
    ]
    assert result.stdout == run_knobs("check", "--format", "json", cwd=drifted).stdout


def test_json_clean(tmp_path: Path) -> None:
    result = run_knobs("check", "-f", "json", cwd=project(tmp_path))
    assert result.returncode == 0
    document = json.loads(result.stdout)
    assert (document["summary"]["status"], document["diagnostics"]) == ("clean", [])


def _sarif(root: Path) -> tuple[int, str, dict[str, Any]]:
    result = run_knobs("check", "--format", "sarif", cwd=root)
    log: dict[str, Any] = json.loads(result.stdout)
    return result.returncode, result.stdout, log


def test_sarif_validates_against_the_sarif_schema(drifted: Path, tmp_path: Path) -> None:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = Draft4Validator(schema, format_checker=Draft4Validator.FORMAT_CHECKER)
    code, text, log = _sarif(drifted)
    assert code == 1
    assert sorted(e.message for e in validator.iter_errors(log)) == []
    clean = _sarif(project(tmp_path / "clean"))[2]
    assert sorted(e.message for e in validator.iter_errors(clean)) == []
    assert text == _sarif(drifted)[1]  # byte-identical: no timestamps, no absolute paths


def test_the_schema_check_would_catch_a_bad_log() -> None:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"level": "bad"}]}]}
    assert len(list(Draft4Validator(schema).iter_errors(bad))) >= 3


def test_sarif_content_for_code_scanning(drifted: Path) -> None:
    log = _sarif(drifted)[2]
    assert (log["$schema"], log["version"]) == (
        "https://json.schemastore.org/sarif-2.1.0.json",
        "2.1.0",
    )
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "knobregistry"
    every = [rule for rule in RULES if rule.code != "KNB203"]  # no baseline: no KNB203
    assert [r["id"] for r in driver["rules"]] == [rule.code for rule in every]
    for rule, declared in zip(driver["rules"], every, strict=True):
        assert rule["helpUri"] == declared.docs  # the page that documents it, as `knobs rule`
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["defaultConfiguration"]["level"] in (
            "error",
            "warning",
            "note",
        )
    results = run["results"]
    assert [(r["ruleId"], driver["rules"][r["ruleIndex"]]["id"], r["level"]) for r in results] == [
        ("KNB007", "KNB007", "error"),
        ("KNB007", "KNB007", "error"),
        ("KNB006", "KNB006", "warning"),
        ("KNB001", "KNB001", "error"),
        ("KNB002", "KNB002", "error"),
    ]
    locations = [r["locations"][0]["physicalLocation"] for r in results]
    assert [(p["artifactLocation"]["uri"], p["region"]) for p in locations] == [
        ("pkg/bad.py", {"startLine": 2}),
        ("pkg/dangling.py", {"startLine": 1}),
        ("pkg/loop.py", {"startLine": 4, "startColumn": 5}),
        ("pkg/zz.py", {"startLine": 2, "startColumn": 5}),
        ("registry.yaml", {"startLine": 15, "startColumn": 3}),
    ]
    assert results[3]["message"]["text"].startswith("PRIMUS_Z is not registered in registry.yaml")
    assert results[3]["properties"] == {"knob": "PRIMUS_Z"}
    assert "timestamp" not in json.dumps(log).lower()


def test_rich_text_on_a_terminal(drifted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(drifted)
    result = run_check(load_registry(drifted / "registry.yaml"), cwd=drifted)
    buffer = io.StringIO()
    print_check_rich(result, Console(file=buffer, force_terminal=True, width=300, soft_wrap=True))
    styled = buffer.getvalue()
    assert "\x1b[" in styled
    plain = Console(file=io.StringIO(), width=300, soft_wrap=True)
    print_check_rich(result, plain)
    assert isinstance(plain.file, io.StringIO)
    assert plain.file.getvalue() == TEXT


_FAKE_RULE = Rule(
    code="KNB199",
    name="FakeProfileRule",
    title="A further check's finding.",
    description="A further check's finding.",
    example="(none)",
    examples=Example(invalid=(), valid=()),  # not in the table: its examples are not run
    help="Do what it says.",
    page="checks.md",
    family=Family.PROFILES,
    severity=Severity.NOTE,
)


def _fake_check(context: Context) -> list[Diagnostic]:
    line, column = context.registry.position("knobs", "PRIMUS_FP8")
    note = f"{len(context.scan.knobs)} knobs, full scope: {context.full_scope}."
    return [
        Diagnostic(
            code="KNB199",
            path="registry.yaml",
            line=line,
            column=column,
            message=note,
            severity=Severity.NOTE,
        )
    ]


def test_further_checks_join_the_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    monkeypatch.chdir(root)
    extra = Check(Family.PROFILES, (_FAKE_RULE,), _fake_check)
    result = run_check(load_registry(root / "registry.yaml"), cwd=root, families=(INVENTORY, extra))
    assert (result.drift, render_check_text(result)) == (
        False,
        "registry.yaml:19:3: KNB199 note: 4 knobs, full scope: True.\n\n"
        "Found 1 note: 4 knobs in 3 files checked against registry.yaml (policy all).\n",
    )
    log = check_to_sarif(result)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    assert list(Draft4Validator(schema).iter_errors(log)) == []
    (run,) = log["runs"]
    assert run["tool"]["driver"]["rules"][-1]["id"] == "KNB199"
    assert run["results"][0]["ruleIndex"] == len(INVENTORY.rules)
    assert run["results"][0]["level"] == "note"
