"""The docs site's pages rendered from the declarations (knobregistry.docsite, run by the
MkDocs hook docs/hooks/pages.py): every marker renders, each rule's section is written once,
in its module, and the pages keep the words and anchors they had."""

from __future__ import annotations

import re

import pytest

from knobregistry.check.codes import RULES
from knobregistry.docsite import MarkerError, render_page
from tests.docs_pages import DOCS, docs_page

PAGES = sorted(p.name for p in DOCS.glob("*.md"))


@pytest.mark.parametrize("name", PAGES)
def test_every_marker_of_the_page_renders(name: str) -> None:
    text = docs_page(name)
    assert "<!-- site:" not in text


def test_each_rule_section_is_declared_in_its_module_only() -> None:
    """A rule's heading is in no page's source, and once in its page as the site shows it."""
    for name in PAGES:
        source = (DOCS / name).read_text(encoding="utf-8")
        assert re.findall(r"^### KNB\d+", source, flags=re.MULTILINE) == [], name
    for rule in RULES:
        assert rule.section.strip() and rule.section.endswith("\n"), rule.code
        heading = f"\n### {rule.code} {rule.name}\n\n{rule.section}"
        assert docs_page(rule.page).count(heading) == 1, rule.code


def test_the_site_markers_are_the_pages_extension_points() -> None:
    found = {
        name: re.findall(r"<!-- site:([a-z-]+)", (DOCS / name).read_text(encoding="utf-8"))
        for name in PAGES
    }
    assert {name: markers for name, markers in found.items() if markers} == {
        "checks.md": ["codes", "codes", "rules"],
        "generated-docs.md": ["rules", "table"],
        "profiles.md": ["table", "rules"],
        "scanning.md": ["languages", "scanned-files"],
        "triage.md": ["modes"],
        "waivers.md": ["rules", "rules", "table"],
    }


def test_a_marker_in_fenced_code_is_shown_as_it_is() -> None:
    text = "```\n<!-- site:modes -->\n```\n<!-- site:modes -->\n"
    rendered = render_page("triage.md", text)
    assert rendered.startswith("```\n<!-- site:modes -->\n```\n| mode | compares |")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- site:nothing -->", "x.md:1: no marker is called site:nothing"),
        ("\n<!-- site:rules KNB9 -->", "x.md:2: <!-- site:rules KNB9 -->: no rule of x.md"),
        ("<!-- site:codes -->", "x.md:1: <!-- site:codes -->: "),
    ],
)
def test_a_marker_the_site_cannot_render_fails_the_build(text: str, message: str) -> None:
    with pytest.raises(MarkerError) as caught:
        render_page("x.md", text)
    assert str(caught.value).startswith(message)
