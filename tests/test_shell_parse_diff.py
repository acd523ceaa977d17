"""The shell parse held against mvdan/sh (shfmt --to-json) on the fixtures.

Every shell form fixture (tests/data/forms/shell-*) parses to the expansions mvdan/sh
finds, at the same line and column, in the same word; the forms where the two still
disagree (tests/data/shell_forms) each disagree only as docs/scanning.md says they do.
The real trees are measured by benchmarks/shell_parse.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.shell_diff import compare, mvdan_expansions, product_expansions, shfmt_json, shfmt_path
from tests.shell_forms import FORMS, UNEXPLAINED, Form

FORMS_DIR = REPO / "tests" / "data" / "forms"
REPAIRED = sorted(p.name for p in FORMS_DIR.iterdir() if p.name.startswith("shell-"))
KNOWN = REPO / "tests" / "data" / "shell_forms"
# fixture -> the one form its disagreements are of
EXPECTED = {
    "arithmetic-key.sh": "an associative array's key that mvdan/sh reads as arithmetic",
    "array-word.sh": "a [0]*3 word in an array literal",
    "bad-substitution.sh": "a ${...} that names no parameter",
    "heredoc-positional.sh": "a positional parameter in a here-document",
    "joined-bracket.sh": "the ] of a [ test joined to its last word",
    "pid-after-word.sh": "$$ right after a word",
    "regex.sh": "an expansion in an =~ regular expression",
    "template.sh": "a template that bash rejects too",
}
# The forms whose expansions the bash grammar alone misreads (before shell_repair these
# disagreed; the others are errors of the grammar: test_scanner_forms holds them).
MISREAD_ALONE = {
    "shell-assignment-value-after-punctuation",
    "shell-default-names-a-variable",
    "shell-expansion-after-blank-in-quotes",
    "shell-expansion-after-punctuation",
    "shell-pattern-with-brackets",
    "shell-pattern-with-escaped-quote",
    "shell-positional-then-name",
    "shell-substring-offset",
}


def _compared(path: Path, *, repaired: bool = True) -> list[str]:
    data = path.read_bytes()
    theirs = mvdan_expansions(shfmt_json(shfmt_path(), data), data)
    comparison = compare(path.name, data, product_expansions(data, repaired=repaired), theirs)
    return [d.form.name for d in comparison.disagreements]


@pytest.mark.parametrize("case", REPAIRED)
def test_a_repaired_form_parses_as_mvdan_sh_parses_it(case: str) -> None:
    (script,) = (FORMS_DIR / case).glob("*.sh")
    assert _compared(script) == []
    if case in MISREAD_ALONE:
        assert _compared(script, repaired=False) != []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_known_form_disagrees_only_as_documented(name: str) -> None:
    forms = _compared(KNOWN / name)
    assert forms, name
    assert set(forms) == {EXPECTED[name]}


def test_every_known_form_is_documented_and_has_a_fixture() -> None:
    assert sorted(p.name for p in KNOWN.glob("*.sh")) == sorted(EXPECTED)
    assert {f.name for f in FORMS} == set(EXPECTED.values())
    for form in FORMS:
        assert form.documented, form.name
    assert not UNEXPLAINED.documented
    assert not Form("a form nobody wrote down").documented


def test_the_benchmark_reports_no_undocumented_disagreement() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "shell_parse.py"),
            f"forms={FORMS_DIR}",
            f"known={KNOWN}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(
        r"== forms: \d+ shell files \(0 that mvdan/sh rejects\), 0 with a disagreement", lines[0]
    )
    assert "undocumented disagreements: 0" in lines
    assert any(
        re.fullmatch(r" +\d+  an expansion in an =~ regular expression  \[documented\]", line)
        for line in lines
    )


def test_before_the_repairs_the_benchmark_puts_what_they_fix_under_their_form() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "shell_parse.py"),
            "--unrepaired",
            f"forms={FORMS_DIR}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [
        re.sub(r"^ +\d+  ", "", line) for line in done.stdout.splitlines() if line.endswith("]")
    ]
    assert rows == ["misread by the grammar alone, repaired  [documented]"]
