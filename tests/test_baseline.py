"""The shrink-only baseline: old findings hidden (matched without lines), new ones reported."""

from __future__ import annotations

import json
from pathlib import Path

from tests.sample_project import NEW_GATE, append, check, edit, project

OTHER = 'OTHER = os.environ.get("PRIMUS_OTHER_TRITON", "1") != "0"\n'
SUMMARY = "checked against registry.yaml (policy all)."

BASELINE_FILE = """\
{
  "version": 1,
  "about": "Findings of `knobs check` accepted when this file was written; `knobs check --baseline knobs-baseline.json` hides them. It only shrinks: after fixing findings, rewrite it with `knobs check --baseline knobs-baseline.json --write-baseline knobs-baseline.json`.",
  "findings": [
    {"code": "KNB001", "knob": "PRIMUS_NEW_TRITON", "path": "pkg/model.py", "count": 1}
  ]
}
"""  # noqa: E501

NEW_ONE_REPORTED = (
    "pkg/model.py:10:9: KNB001 error: PRIMUS_OTHER_TRITON is not registered in registry.yaml: "
    'it is on by default ("0" turns it off) and read here.\n'
    "    Register it in registry.yaml under `knobs:`, then triage it:\n"
    "      PRIMUS_OTHER_TRITON:\n"
    '        default: "1"\n'
    "        default_on: true\n"
    "        role:\n"
    "          proposed: unknown\n"
    '          reason: "the name PRIMUS_OTHER_TRITON says TRITON'
    ", a hint of a kernel choice, but no code it reaches"
    ' shows one: words alone are not evidence"\n'
    "        triage: untriaged\n"
    "\n"
    f"Found 1 error: 6 knobs in 3 files {SUMMARY} "
    "1 finding hidden by the baseline knobs-baseline.json.\n"
)

REFUSED = """\
knobs check: error: knobs-baseline.json would grow by 1 finding:
  KNB001 PRIMUS_OTHER_TRITON in pkg/model.py (1 now, 0 in the baseline)
A baseline only shrinks: fix these findings, or pass --force to accept them.
"""

GONE = (
    "knobs-baseline.json:5:5: KNB203 error: The baseline lists KNB001 for PRIMUS_NEW_TRITON in "
    "pkg/model.py, which the check no longer reports.\n"
    "    Shrink the baseline: knobs check --baseline knobs-baseline.json --write-baseline "
    "knobs-baseline.json\n"
    "\n"
    f"Found 1 error: 4 knobs in 3 files {SUMMARY} "
    "0 findings hidden by the baseline knobs-baseline.json.\n"
)


def adopted(tmp_path: Path) -> Path:
    """A project with one unregistered knob, accepted into a new baseline."""
    root = project(tmp_path)
    append(root)
    code, out, err = check(root, "--write-baseline", "knobs-baseline.json")
    assert (code, err) == (0, "Wrote knobs-baseline.json: 1 finding accepted.\n")
    assert out == (
        f"No problems: 5 knobs in 3 files {SUMMARY} "
        "1 finding hidden by the baseline knobs-baseline.json.\n"
    )
    return root


def test_the_baseline_file_is_one_finding_per_line(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    assert (root / "knobs-baseline.json").read_text(encoding="utf-8") == BASELINE_FILE


def test_the_baseline_hides_old_findings_and_still_reports_a_new_one(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    append(root, OTHER)
    assert check(root, "--baseline", "knobs-baseline.json") == (1, NEW_ONE_REPORTED, "")


def test_moved_code_stays_hidden(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    edit(root / "pkg/model.py", "HC = ", "\n\n# moved down\nHC = ")
    code, out, _ = check(root, "--baseline", "knobs-baseline.json")
    assert (code, out.splitlines()[0].startswith("No problems")) == (0, True)


def test_write_baseline_refuses_to_grow(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    append(root, OTHER)
    before = (root / "knobs-baseline.json").read_bytes()
    assert check(root, "--write-baseline", "knobs-baseline.json") == (2, "", REFUSED)
    assert (root / "knobs-baseline.json").read_bytes() == before


def test_force_lets_it_grow(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    append(root, OTHER)
    code, out, err = check(root, "--write-baseline", "knobs-baseline.json", "--force")
    assert (code, err) == (0, "Wrote knobs-baseline.json: 2 findings accepted (was 1).\n")
    assert out.endswith("2 findings hidden by the baseline knobs-baseline.json.\n")


def test_a_finding_that_is_gone_asks_for_the_baseline_to_shrink(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    edit(root / "pkg/model.py", NEW_GATE, "")
    assert check(root, "--baseline", "knobs-baseline.json") == (1, GONE, "")
    code, _, err = check(
        root, "--baseline", "knobs-baseline.json", "--write-baseline", "knobs-baseline.json"
    )
    assert (code, err) == (0, "Wrote knobs-baseline.json: 0 findings accepted (was 1).\n")
    assert json.loads((root / "knobs-baseline.json").read_text(encoding="utf-8"))["findings"] == []
    code, _, err = check(root, "--write-baseline", "knobs-baseline.json")
    assert (code, err) == (0, "knobs-baseline.json is up to date: 0 findings accepted.\n")


def test_gone_entries_are_not_checked_when_paths_narrow_the_scan(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    code, out, _ = check(root, "--baseline", "knobs-baseline.json", "pkg/envs.py")
    assert code == 0
    assert "KNB203" not in out


def test_more_findings_of_one_key_than_accepted_reports_them_all(tmp_path: Path) -> None:
    root = project(tmp_path)
    loop = 'import os\n\nfor kind in open("kinds"):\n    os.environ.get(f"PRIMUS_{kind}")\n'
    (root / "pkg/loop.py").write_text(loop, encoding="utf-8")
    assert check(root, "--write-baseline", "b.json")[0] == 0
    edit(root / "pkg/loop.py", "    os.environ", "    os.getenv(f'X_{kind}')\n    os.environ")
    code, out, _ = check(root, "--baseline", "b.json")
    assert code == 0  # KNB006 is a warning
    assert [line[:20] for line in out.splitlines() if " KNB006 " in line] == [
        "pkg/loop.py:4:5: KNB",
        "pkg/loop.py:5:5: KNB",
    ]
    assert out.endswith("0 findings hidden by the baseline b.json.\n")


def test_json_output_names_the_baseline(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    code, out, _ = check(root, "--baseline", "knobs-baseline.json", "--format", "json")
    document = json.loads(out)
    assert (code, document["baseline"]) == (0, {"path": "knobs-baseline.json", "hidden": 1})
    assert document["diagnostics"] == []


def test_an_unreadable_baseline_is_a_usage_error(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "b.json").write_text('{"version": 1, "findings": [{"code": 1}]}', encoding="utf-8")
    assert check(root, "--baseline", "b.json") == (
        2,
        "",
        'knobs check: error: b.json: findings[0]: "code" must be a code such as "KNB001".\n',
    )
    (root / "b.json").write_text("{oops", encoding="utf-8")
    code, _, err = check(root, "--baseline", "b.json")
    assert (code, err) == (
        2,
        "knobs check: error: b.json:1:2: the baseline is not valid JSON: "
        "Expecting property name enclosed in double quotes.\n",
    )
    # Nested deeper than the decoder recurses (issue 18): an error, not a traceback.
    (root / "b.json").write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    assert check(root, "--baseline", "b.json") == (
        2,
        "",
        "knobs check: error: b.json:1:1: the baseline is not valid JSON: "
        "nested too deeply to read.\n",
    )
    code, _, err = check(root, "--write-baseline", "b.json")
    assert code == 2 and err.endswith("Pass --force to replace it.\n")
    assert check(root, "--write-baseline", "b.json", "--force")[0] == 0


def test_a_missing_baseline_is_a_usage_error(tmp_path: Path) -> None:
    code, out, err = check(project(tmp_path), "--baseline", "nope.json")
    assert (code, out) == (2, "")
    assert err.startswith("knobs check: error: nope.json: cannot read the baseline:")


def test_write_baseline_needs_the_whole_scope(tmp_path: Path) -> None:
    assert check(project(tmp_path), "--write-baseline", "b.json", "pkg") == (
        2,
        "",
        "knobs check: error: --write-baseline needs the whole scope; leave out PATHS.\n",
    )


def test_an_expired_waiver_is_never_baselined(tmp_path: Path) -> None:
    root = project(tmp_path)
    edit(
        root / "registry.yaml",
        "    triage: untriaged\n",
        "    triage: untriaged\n    expires: 2000-01-01\n    owner: me\n",
    )
    code, out, _ = check(root, "--write-baseline", "b.json")
    assert code == 1 and " KNB201 " in out
    assert json.loads((root / "b.json").read_text(encoding="utf-8"))["findings"] == []


def test_baseline_paths_are_relative_to_its_folder(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    code, out, _ = check(root / "pkg", "--baseline", "../knobs-baseline.json")
    assert code == 0, out
    assert out.endswith("1 finding hidden by the baseline ../knobs-baseline.json.\n")
