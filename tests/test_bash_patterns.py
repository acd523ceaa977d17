"""Bash's patterns as bash matches them: each case's answer is bash 5.2's, and the test asks
the bash on the machine too (scanner/launcher/bash_patterns.py)."""

from __future__ import annotations

import subprocess

import pytest

from scanner.launcher.bash_patterns import Pattern, ere, ere_value, glob
from scanner.launcher.shell_syntax import parser

# (operator, the pattern as the script writes it, the text matched, bash's answer)
CASES = [
    ("=~", r"\w", "a", False),  # a backslash quotes: the letter w, no GNU class
    ("=~", r"\w", "w", True),
    ("=~", r"\d", "5", False),
    ("=~", r"a\.b", "axb", False),
    ("=~", r"a\.b", "a.b", True),
    ("=~", "a'.'b", "axb", False),  # a quoted part is matched as written
    ("=~", '"a.b"', "axb", False),
    ("=~", '"^a$"', "^a$", True),
    ("=~", "[[:space:]]", " ", True),  # a POSIX class
    ("=~", "[[:space:]]", "s", False),
    ("=~", "^[0-9]+$", "12", True),
    ("=~", "^[0-9]+$", "12\n", False),  # $ ends the text, not a last line
    ("=~", "(^|[[:space:]])-D(=|$)", "x -D=", True),
    ("=~", "^1$|^on$", "on", True),
    ("=~", "a{2}", "aa", True),
    ("==", '"a*"', "a*", True),
    ("==", '"a*"', "ab", False),
    ("==", '"a"*', "ab", True),
    ("==", r"a\*", "ab", False),
    ("==", r"a\*", "a*", True),
    ("==", "[^a]", "b", True),  # ^ negates as ! does
    ("==", "[^a]", "^", True),
    ("==", "[^a]", "a", False),
    ("==", "[!a]", "b", True),
    ("==", "@(a|b)", "a", True),  # extended globs, as if extglob were on
    ("==", "@(a|b)", "c", False),
    ("==", "+(a|b)", "ab", True),
    ("==", "*(a)", "aaa", True),
    ("==", "?(x)y", "y", True),
    ("==", "[[:digit:]]*", "1a", True),
    ("==", "[[:digit:]]*", "a1", False),
    ("==", "a[", "a[", True),  # an unclosed bracket is the text [
    ("==", "[a-c]", "b", True),
    ("==", "[a-]", "-", True),
    ("==", "*", "a\nb", True),
    ("==", "a$", "a$", True),
]


def _pattern(op: str, written: str) -> Pattern | None:
    test = parser().parse(f"[[ $X {op} {written} ]]".encode()).root_node.children[0]
    right = test.children[1].children[2]
    return ere(right) if op == "=~" else glob(right)


@pytest.mark.parametrize(("op", "written", "seen", "answer"), CASES)
def test_a_pattern_matches_as_bash_matches_it(
    op: str, written: str, seen: str, answer: bool
) -> None:
    pattern = _pattern(op, written)
    assert pattern is not None
    assert pattern.matches(seen) is answer
    bash = subprocess.run(["bash", "-c", f'[[ "$1" {op} {written} ]]', "_", seen], check=False)
    assert bash.returncode == (0 if answer else 1)


@pytest.mark.parametrize(
    ("op", "written", "fixed"),
    [
        ("==", '"a*"', "a*"),
        ("==", r"a\*", "a*"),
        ("==", "a*", None),
        ("==", "@(a|b)", None),
        ("=~", '"a.b"', "a.b"),
        ("=~", "a.b", None),
    ],
)
def test_a_pattern_with_no_unquoted_special_character_matches_its_text_alone(
    op: str, written: str, fixed: str | None
) -> None:
    pattern = _pattern(op, written)
    assert pattern is not None and pattern.fixed == fixed


@pytest.mark.parametrize(("op", "written"), [("=~", "[a"), ("=~", "(?:a)"), ("==", "!(a)")])
def test_a_pattern_bash_fails_on_or_that_is_not_tried_tells_nothing(op: str, written: str) -> None:
    pattern = _pattern(op, written)
    assert pattern is not None and pattern.matches("a") is None


def test_an_expansion_in_the_pattern_is_no_pattern() -> None:
    assert _pattern("==", '"$Y"*') is None
    assert _pattern("=~", "^$Y") is None


def test_a_value_read_on_the_right_of_a_match_is_its_expression() -> None:
    assert ere_value("^t").matches("true") is True
    assert ere_value("^t").matches("false") is False
