"""The codes table: unique, documented in docs/checks.md, and the same everywhere it appears."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knobregistry.check.all_checks import STALE_TRIAGES
from knobregistry.check.codes import RULES as ALL_RULES
from knobregistry.check.codes import rule
from knobregistry.check.diagnostics import Severity
from knobregistry.check.inventory import INVENTORY
from knobregistry.check.rule_table import render_codes
from tests.conftest import run_knobs
from tests.docs_pages import docs_page
from tests.sample_project import NEW_GATE, project

RULES = (*INVENTORY.rules, *STALE_TRIAGES.rules)  # the KNB0xx codes: the code against the registry


def test_codes_are_unique_and_in_order() -> None:
    codes = [r.code for r in RULES]
    assert codes == sorted(set(codes))
    assert all(re.fullmatch(r"KNB0\d\d", code) for code in codes)
    assert rule("KNB001").name == "UnregisteredKnob"


def test_every_code_is_documented_with_its_table_row_and_section() -> None:
    text = docs_page("checks.md")
    for r in RULES:
        severity = "(registry error)" if r.reserved else r.severity.value
        row = f"| [{r.code}](#{r.anchor}) | {r.name} | {severity} | {r.title} |"
        assert row in text, row
        assert f"\n### {r.code} {r.name}\n" in text, r.code
    documented = set(re.findall(r"^### (KNB\d+)", text, flags=re.MULTILINE))
    assert documented == {r.code for r in RULES}


def test_only_the_dynamic_read_is_a_warning() -> None:
    assert [r.code for r in RULES if r.severity is Severity.WARNING] == ["KNB006"]
    assert [r.code for r in RULES if r.reserved] == ["KNB005"]


SCENARIOS = {
    "KNB001": ("pkg/model.py", "", NEW_GATE),
    "KNB002": ("pkg/model.py", 'ROPE = env_flag("PRIMUS_ROPE_TRITON")\n', ""),
    "KNB003": ("pkg/model.py", '"PRIMUS_HC_TRITON", "1"', '"PRIMUS_HC_TRITON", "0"'),
    "KNB004": (
        "pkg/other.py",
        "",
        'import os\n\nFAST = os.environ.get("PRIMUS_HC_TRITON", "0") == "1"\n',
    ),
    "KNB006": (
        "pkg/loop.py",
        "",
        'import os\n\nfor kind in open("kinds"):\n    os.environ.get(f"PRIMUS_{kind}")\n',
    ),
    "KNB007": ("pkg/broken.py", "", 'import os\nx = os.environ.get("PRIMUS_X"\n'),
    "KNB008": (
        "pkg/flags.py",
        "",
        "import os\n\nfrom toolkit import str2bool\n\n"
        'ADAM = str2bool(os.environ.get("PRIMUS_FUSED_ADAM", "1"))\n',
    ),
}


@pytest.mark.parametrize("code", sorted(SCENARIOS))
def test_documented_examples_are_what_check_prints(tmp_path: Path, code: str) -> None:
    """The docs' example project, changed as each section says: its output is in the docs."""
    root = project(tmp_path)
    path, old, new = SCENARIOS[code]
    target = root / path
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    target.write_text(text.replace(old, new) if old else text + new, encoding="utf-8")
    out = run_knobs("check", cwd=root).stdout
    assert f" {code} " in out
    docs = docs_page("checks.md")
    for line in out.splitlines():
        assert ("    " + line if line else "") in docs, line


def test_the_code_table_is_complete_and_in_order() -> None:
    codes = [r.code for r in ALL_RULES]
    assert codes == sorted(set(codes))
    assert {r.code[:4] for r in ALL_RULES} == {"KNB0", "KNB1", "KNB2"}
    for r in ALL_RULES:
        assert r.title.endswith(".") and r.help.endswith("."), r.code
        assert r.example.strip() and r.description.strip(), r.code
        page = docs_page(r.page)
        assert f"\n### {r.code} {r.name}\n" in page, r.code


def test_the_tables_of_checks_md_are_rendered_from_the_code_table() -> None:
    text = docs_page("checks.md")
    for prefix in ("KNB0", "KNB2"):
        block = f"<!-- knobs:begin codes:{prefix} -->\n\n"
        rendered = "\n".join(render_codes(prefix))
        assert block + rendered + f"\n\n<!-- knobs:end codes:{prefix} -->" in text
    assert "| [KNB201](waivers.md#knb201-expiredwaiver) | ExpiredWaiver | error |" in text
    assert "| [KNB005](#knb005-exemptwithoutreason) | ExemptWithoutReason | (registry " in text


def test_the_docs_check_fails_on_a_hand_edited_code_row(tmp_path: Path) -> None:
    root = project(tmp_path)
    text = docs_page("checks.md")
    edited = text.replace("| StaleKnob | error |", "| StaleKnob | warning |")
    assert edited != text
    (root / "checks.md").write_text(edited, encoding="utf-8")
    done = run_knobs("docs", "--check", "checks.md", cwd=root)
    assert done.returncode == 1
    line = next(n for n, t in enumerate(edited.splitlines(), 1) if "| StaleKnob |" in t)
    assert (
        f"checks.md:{line}:1: KNB204 error: The generated block 'codes:KNB0' differs" in done.stdout
    )
    written = run_knobs("docs", "--write", "checks.md", cwd=root)
    assert written.returncode == 0, written.stderr
    assert (root / "checks.md").read_text(encoding="utf-8") == text.replace(
        "<!-- knobs:begin codes:KNB0 -->",
        "<!-- knobs:registry registry.yaml -->\n\n<!-- knobs:begin codes:KNB0 -->",
    )
