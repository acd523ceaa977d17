"""Skeletons (issue 18): a block parsed before, up to its names, is not parsed again.

Cutting a huge file into statements takes a block whose skeleton (its text with
the names replaced) was parsed before from the model learned then
(scanner/source/skeletons.py). These tests hold the statements found that way
against parsing every block, on generated files full of what the tokenizer
looks at inside a name-like run (keywords, soft keywords, string prefixes,
numbers, attributes, escapes, f-strings, a statement inside a string), and on
the project's own files.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scanner.source import split as scanner_split
from scanner.source.narrow import text_lines
from scanner.source.skeletons import apply, skeleton
from scanner.source.split import Unit
from tests.conftest import REPO

# Statements with up to four names (a, b, c, d) to fill in.
FORMS = (
    '{a} = os.environ.get("{b}", "1") != "0"\n',
    '{a} = {b}.{c}("{d}")\n',
    "{a} = 1e5 + 0x1F + 1_000 + {b}.{c}\n",
    '{a} = r"{b}" + b"{c}" + "{d} {a}"\n',
    '{a} = f"{{{b}}}"\n',
    '{a} = "\\n{b}"\n',
    "@{a}\ndef {b}({c}, *, {d}=None):\n    return {c} if {d} else {a}\n",
    "class {a}({b}):\n    {c} = 1\n\n    def {d}(self):\n        self.{c} = 2\n",
    "import {a} as {b}\n",
    "from {a} import {b} as {c}\n",
    "{a} = 1; {b} = 2\n",
    "if {a}:\n    {b} = 2\nelse:\n    {c} = 3\n",
    '{a} = (\n    {b},\n    "{c}",\n)\n',
    "{a}: int = {b}  # {c}\n",
    "global {a}\n",
    "for {a} in {b}:\n    pass\n",
    "{a} = [{b} for {b} in {c}]\n",
    "{a} = lambda {b}: {b}\n",
    "match {a}:\n    case {b}:\n        pass\n",
    '{a}["{b}"] = {c}\n',
    'print("{a}" in os.environ, "{b}" not in {c})\n',
    '{a} = """\n{b} = 1\n"""\n',
    "{a} = {b}\n# {c} = 1\n\n",
    "try:\n    {a} = {b}\nexcept {c}:\n    {d} = 1\n",
)
NAMES = st.sampled_from(
    [
        *("x", "y1", "X_LONG_NAME", "match", "type", "_", "case", "__all__", "rb", "f"),
        *("r", "e5", "environ", "os", "print", "b", "u", "N", "x1F"),
    ]
)


def _units(
    lines: Sequence[str], learn: bool, patch: pytest.MonkeyPatch, applied: list[int] | None = None
) -> list[Unit] | None:
    """The units of ``lines``: parsing every block, or taking each block whose skeleton
    was parsed before from its model (a piece a line long, so that the next block is
    looked up); ``applied`` gets the line of each block taken from a model."""
    with patch.context() as inner:
        if not learn:
            inner.setattr(scanner_split, "skeleton", lambda block: None)
            return scanner_split._units(lines)
        inner.setattr(scanner_split, "PIECE_LINES", 1)
        real = apply

        def counted(model: Any, shape: Any, block: Any, first: int) -> Any:
            if applied is not None:
                applied.append(first)
            return real(model, shape, block, first)

        inner.setattr(scanner_split, "apply", counted)
        return scanner_split._units(lines)


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(
            st.sampled_from(FORMS),
            st.lists(st.tuples(NAMES, NAMES, NAMES, NAMES), min_size=2, max_size=5),
        ),
        min_size=1,
        max_size=4,
    ),
    st.randoms(use_true_random=False),
)
def test_a_file_of_repeated_statements_gives_the_units_parsing_gives(
    families: list[tuple[str, list[tuple[str, str, str, str]]]], random: object
) -> None:
    statements = [
        form.format(a=a, b=b, c=c, d=d) for form, names in families for a, b, c, d in names
    ]
    statements = [s for s in statements if _parses(s)]
    assume(len(statements) >= 2)
    random.shuffle(statements)  # type: ignore[attr-defined]
    text = "import os\n" + "".join(statements)
    assume(_parses(text))
    lines = text_lines(text)
    with pytest.MonkeyPatch.context() as patch:
        assert _units(lines, True, patch) == _units(lines, False, patch)


def test_repeated_blocks_are_taken_from_their_model(monkeypatch: pytest.MonkeyPatch) -> None:
    names = [("a1", "b1", "c1", "d1"), ("a22", "b22", "c22", "d22"), ("a3", "LONG_B", "c", "d")]
    text = "import os\n" + "".join(
        form.format(a=a, b=b, c=c, d=d) for form in FORMS for a, b, c, d in names
    )
    lines = text_lines(text)
    applied: list[int] = []
    assert _units(lines, True, monkeypatch, applied) == _units(lines, False, monkeypatch)
    taken = {lines[line - 1] for line in applied}
    assert 'a22 = os.environ.get("b22", "1") != "0"\n' in taken
    assert 'a3 = os.environ.get("LONG_B", "1") != "0"\n' in taken
    # Not learned: an f-string, an escape, a decorator (its block is the line of the @,
    # which does not parse alone), `global` (its names are not written where ast says),
    # two statements on a line, imports.
    assert not taken & {'a22 = f"{b22}"\n', "@a22\n", "global a22\n", "a22 = 1; b22 = 2\n"}
    assert {"match a3:\n", "for a3 in LONG_B:\n", "if a22:\n", "a22 = b22\n"} <= taken
    # An attribute's name is kept in the skeleton: `b.c` and `b.c22` are not one.
    assert 'a22 = b22.c22("d22")\n' not in taken
    # A line like a statement inside a string is no start: the block holding it is not
    # one statement, and is not learned.
    assert 'a22 = """\n' not in taken
    assert len(applied) == 26


def test_the_project_s_own_files_give_the_units_parsing_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = sorted((REPO / "scanner").rglob("*.py")) + sorted((REPO / "tests").glob("test_*.py"))
    for path in files:
        lines = text_lines(path.read_text(encoding="utf-8"))
        assert _units(lines, True, monkeypatch) == _units(lines, False, monkeypatch), path


@pytest.mark.parametrize(
    ("block", "text"),
    [
        (['X1 = os.environ.get("X_1", "1") != "0"\n'], '\0 = \0.environ.get("\0", "1") != "0"\n'),
        (["x = 1e5 + 0x1F + obj.attr\n"], "\0 = 1e5 + 0x1F + \0.attr\n"),
        (['s = rb"raw" + u"text"\n'], '\0 = rb"\0" + u"\0"\n'),
        (["if match:\n", "    __all__ = None\n"], "if match:\n    __all__ = None\n"),
    ],
)
def test_a_skeleton_keeps_what_the_tokenizer_looks_at(block: list[str], text: str) -> None:
    found = skeleton(block)
    assert found is not None and found.text == text


@pytest.mark.parametrize(
    "block",
    [['x = f"{y}"\n'], ['x = "\\N{BULLET}"\n'], ["x = 1 + \\\n", "    2\n"], ["café = 1\n"]],
)
def test_a_block_with_an_f_string_an_escape_or_text_beyond_ascii_has_no_skeleton(
    block: list[str],
) -> None:
    assert skeleton(block) is None
