"""Every rule, walked from its one declaration (knobregistry.check.codes): a unique code, its
family's check, its docs page, its examples run as `knobs check` runs them (Fixit's
VALID / INVALID), its SARIF link and its `knobs rule` page.

The examples and `knobs rule` run through the command line's entry point in a child forked
from the test process (tests/forked.py), as Fixit runs its examples in-process; the first
rule of each family runs the real command in a subprocess, so the whole path from the
shell stays tested for every family's check."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from knobregistry.check import diagnostics
from knobregistry.check.all_checks import ALL_CHECKS, group_of
from knobregistry.check.codes import RULES, rules_of
from knobregistry.check.diagnostics import Family, Files, Group, Rule
from knobregistry.check.run import CheckResult
from knobregistry.registry import Policy
from knobregistry.report.check_sarif import check_to_sarif
from knobregistry.report.rule import render_rule
from tests.conftest import REPO, run_knobs, write_tree
from tests.docs_pages import docs_page
from tests.forked import run_forked

CODES = [rule.code for rule in RULES]
# One rule of each family whose examples and page run the real `knobs` in a subprocess.
THROUGH_THE_SHELL = frozenset(rules_of(family)[0].code for family in Family)
_FINDING = re.compile(r"^\S+: (KNB\d{3}) ", re.MULTILINE)


def _by_code(code: str) -> Rule:
    return next(rule for rule in RULES if rule.code == code)


def test_codes_are_unique_and_in_order() -> None:
    assert sorted(set(CODES)) == CODES
    assert all(re.fullmatch(r"KNB\d{3}", code) for code in CODES)
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))


def test_every_family_is_one_check_and_holds_its_rules() -> None:
    checks = {check.family: check for check in ALL_CHECKS}
    assert len(checks) == len(ALL_CHECKS) and set(checks) == set(Family)
    for family, check in checks.items():
        assert check.rules == rules_of(family) and check.rules, family
    assert sorted(r.code for check in ALL_CHECKS for r in check.rules) == CODES


def test_a_findings_pytest_item_is_its_familys_group() -> None:
    assert group_of("KNB001") is Group.INVENTORY
    assert group_of("KNB203") is Group.WAIVERS  # the baseline's finding
    assert {rule.family.group for rule in RULES} == set(Group)
    assert [g.item for g in Group] == ["inventory", "profiles", "waivers", "docs"]


def test_the_docs_site_is_mkdocs_site_url() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config.get("site_url") == diagnostics.DOCS_SITE


@pytest.mark.parametrize("code", CODES)
def test_the_docs_page_documents_the_rule(code: str) -> None:
    """Its page exists, has the rule's heading (the anchor its links use) and its summary."""
    rule = _by_code(code)
    page = docs_page(rule.page)
    assert f"\n### {rule.code} {rule.name}\n" in page
    assert rule.anchor == f"{rule.code} {rule.name}".lower().replace(" ", "-")
    assert f"| {rule.title} |" in page
    assert rule.docs == f"docs/{rule.page}#{rule.anchor}"  # no site_url: the repository's file


def test_sarif_links_each_rule_to_its_page() -> None:
    result = CheckResult(
        registry="registry.yaml",
        policy=Policy.ALL,
        paths=("pkg",),
        diagnostics=(),
        knobs=0,
        files=0,
        stale_checked=True,
        rules=RULES,
    )
    driver = check_to_sarif(result)["runs"][0]["tool"]["driver"]
    links = [
        (r["id"], r["helpUri"], r["help"]["markdown"].rsplit("(", 1)[1]) for r in driver["rules"]
    ]
    assert links == [(rule.code, rule.docs, f"{rule.docs}).") for rule in RULES]


@pytest.mark.parametrize("code", CODES)
def test_knobs_rule_prints_the_declaration(tmp_path: Path, code: str) -> None:
    rule = _by_code(code)
    done = _knobs(code)("rule", code, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, render_rule(rule, 120), "")
    assert done.stdout.endswith(f"\nDocumented in {rule.docs}\n")
    assert done.stdout.startswith(f"{rule.code} {rule.name} (")


def _knobs(code: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    """How the tests of rule ``code`` run `knobs`: a subprocess, or a forked child."""
    return run_knobs if code in THROUGH_THE_SHELL else run_forked


def _check(
    root: Path, files: Files, arguments: tuple[str, ...], code: str
) -> tuple[int, list[str], str]:
    write_tree(root, dict(files))
    env = {"PYTHONPATH": str(root)}  # stand-ins of megatron-core and torchtitan come first
    if code in THROUGH_THE_SHELL:
        done = run_knobs("check", *arguments, cwd=root, env=env)
    else:
        done = run_forked("check", *arguments, cwd=root, env=env, path=[root])
    return done.returncode, sorted(set(_FINDING.findall(done.stdout))), done.stderr


@pytest.mark.parametrize("code", CODES)
def test_the_invalid_example_reports_exactly_its_code(tmp_path: Path, code: str) -> None:
    rule = _by_code(code)
    status, found, stderr = _check(tmp_path, rule.examples.invalid, rule.examples.arguments, code)
    if rule.reserved:  # caught when the registry loads: the check stops there
        assert (status, found) == (2, [])
        assert stderr.startswith("registry.yaml:"), stderr
        return
    failing = rule.severity is diagnostics.Severity.ERROR
    assert (status, found, stderr) == (1 if failing else 0, [code], "")


@pytest.mark.parametrize("code", CODES)
def test_the_valid_example_is_clean(tmp_path: Path, code: str) -> None:
    rule = _by_code(code)
    assert _check(tmp_path, rule.examples.valid, rule.examples.arguments, code) == (0, [], "")
