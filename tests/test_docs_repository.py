"""The repository's own docs: the determinism page is in sync, and every sample is real output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knobregistry.check.all_checks import BASELINE, WAIVERS
from knobregistry.check.all_checks import DOCS as DOCS_FAMILY
from knobregistry.check.diagnostics import Rule
from knobregistry.docsgen import parse, refresh
from knobregistry.registry import load_registry
from tests import (
    test_baseline,
    test_diff,
    test_diff_code,
    test_docs,
    test_export_roles,
    test_stale_triage,
    test_waivers,
)
from tests.conftest import REPO, run_knobs
from tests.docs_pages import docs_page, rendered_docs
from tests.sample_project import NEW_GATE_FAILURE

DOCS = REPO / "docs"


def page(name: str) -> str:
    return docs_page(name)


def test_the_determinism_page_is_in_sync_with_the_registry() -> None:
    done = run_knobs("docs", "--check", "docs/determinism.md", cwd=REPO)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "No problems: 1 doc checked against registry.yaml.\n",
        "",
    )


def test_every_doc_of_the_repository_is_checked(tmp_path: Path) -> None:
    """determinism.md (the registry's blocks) and checks.md (the tables of codes), as the
    site shows them (its markers rendered)."""
    done = run_knobs("docs", "--check", cwd=rendered_docs(tmp_path))
    assert (done.returncode, done.stdout) == (
        0,
        "No problems: 2 docs checked against registry.yaml.\n",
    )


def test_the_determinism_page_renders_every_knob_and_profile() -> None:
    registry = load_registry(REPO / "registry.yaml")
    text = page("determinism.md")
    assert refresh(text, registry, "../registry.yaml").text == text
    names = [b.name for b in parse(text).blocks]
    assert names == ["knobs", "external", *(f"profile:{p}" for p in registry.profiles)]
    for name in registry.knobs:
        assert f"| `{name}` |" in text
    assert "| `PRIMUS_HC_TRITON` |" in text and "**breaks-bitwise** (backward)" in text


DOCS_RULES = DOCS_FAMILY.rules
WAIVER_RULES = WAIVERS.rules
KNB2_RULES = (*WAIVER_RULES, *BASELINE.rules, *DOCS_RULES)


def rule_page(rule: Rule) -> str:
    return "generated-docs.md" if rule in DOCS_RULES else "waivers.md"


@pytest.mark.parametrize("rule", KNB2_RULES, ids=lambda r: r.code)
def test_every_knb2_code_is_documented(rule: Rule) -> None:
    text = page(rule_page(rule))
    row = f"| {rule.code} | {rule.name} | {rule.severity.value} | {rule.title} |"
    assert row in text.splitlines()
    assert f"### {rule.code} {rule.name}" in text.splitlines()
    link = f"| [{rule.code}]({rule_page(rule)}#{rule.anchor}) | {rule.name} |"
    assert link in page("checks.md")
    assert rule.help.endswith(".") and rule.title.endswith(".")


def test_codes_are_stable() -> None:
    assert [r.code for r in KNB2_RULES] == ["KNB201", "KNB202", "KNB203", "KNB204", "KNB205"]
    assert [r.code for r in WAIVER_RULES] == ["KNB201", "KNB202"]
    assert all(re.fullmatch(r"KNB2\d\d", r.code) for r in KNB2_RULES)


SAMPLES = {
    "waivers.md": [
        test_waivers.EXPIRED,
        test_waivers.NO_OWNER,
        test_baseline.NEW_ONE_REPORTED,
        test_baseline.REFUSED,
        test_baseline.GONE,
        "Wrote knobs-baseline.json: 1 finding accepted.\n",
        "Wrote knobs-baseline.json: 0 findings accepted (was 1).\n",
    ],
    "diff.md": [
        *(test_diff.TEXT, test_diff.MARKDOWN, test_diff.FIRST_ADOPTION),
        *(test_diff.UNTRACKED, test_diff.UNCOMMITTED),
    ],
    "ci.md": [
        *(test_stale_triage.ROPE_STALE, test_diff_code.TEXT),
        test_diff_code.MARKDOWN.split("\n\n", 3)[3],  # below the table
    ],
    "triage.md": [test_stale_triage.ROPE_STALE],
    "generated-docs.md": [
        test_docs.DRIFT,
        "Wrote docs/knobs.md: a new page with 3 blocks from registry.yaml.\n",
        "docs/knobs.md is up to date: 3 blocks from registry.yaml.\n",
        "Updated docs/knobs.md: 1 of 3 blocks from registry.yaml rewritten.\n",
    ],
}


@pytest.mark.parametrize(
    ("name", "sample"), [(n, s) for n, samples in SAMPLES.items() for s in samples]
)
def test_samples_in_the_guide_are_real_output(name: str, sample: str) -> None:
    """Each sample, as the tests pin it, appears in the page as an indented block."""
    text = page(name)
    for line in sample.splitlines():
        assert ("    " + line if line else "") in text.splitlines(), line


def test_the_plugin_failure_in_the_guide_is_real_output() -> None:
    text = page("ci.md")
    assert NEW_GATE_FAILURE in text


def test_the_undecided_knobs_in_the_guide_are_real_output() -> None:
    """docs/profiles.md shows what the export prints where it leaves knobs of undecided gate
    or unknown role, and what --strict prints instead, as tests/test_export_roles.py pins."""
    text = page("profiles.md")
    header = [
        line for line in test_export_roles.RECIPE.splitlines() if line.startswith("# Left as")
    ]
    assert len(header) == 2
    assert "```\n" + "\n".join(header) + "\n```\n" in text
    assert f"```\n{test_export_roles.SAID}```\n" in text
    assert f"```\n{test_export_roles.STRICT}```\n" in text


def test_the_scan_table_in_the_guide_is_real_output() -> None:
    """docs/scanning.md shows `knobs scan examples/` as it prints, whole."""
    done = run_knobs("scan", "examples/", cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert f"```\n{done.stdout}```\n" in page("scanning.md")
