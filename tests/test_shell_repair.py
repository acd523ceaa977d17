"""The repairs of the bash grammar's misreadings: what the tree becomes, and that
positions and text stay the file's."""

from __future__ import annotations

from scanner.launcher.shell_repair import parse_script
from scanner.launcher.shell_syntax import is_expansion, walk


def _expansions(data: bytes) -> list[tuple[str, tuple[int, int]]]:
    script = parse_script(data)
    return [
        (script.original(n.start_byte, n.end_byte).decode(), script.point(n))
        for n in walk(script.root)
        if is_expansion(n)
    ]


def test_a_lone_dollar_after_punctuation_is_read_at_its_place() -> None:
    data = b"mkdir -p $A/$B/x\necho $C\n"
    script = parse_script(data)
    assert script.data == b"mkdir -p $A/${B}/x\necho $C\n"
    assert script.source == data
    assert not script.root.has_error
    assert _expansions(data) == [("$A", (0, 9)), ("$B", (0, 12)), ("$C", (1, 5))]
    assert script.original(0, len(script.data)) == data
    assert [script.offset(at) for at in (12, 13, 14, 15, 16)] == [12, 13, 13, 14, 14]


def test_an_assignment_stays_one_assignment() -> None:
    script = parse_script(b"LOG_DIR=./o/$T/$U/$E\n")
    assert [c.type for c in script.root.children] == ["variable_assignment"]


def test_a_brace_the_grammar_cannot_take_is_left_out() -> None:
    # unsloth studio/setup.sh:876: braced, ``${A:+${A};}`` does not parse.
    data = b'_a="${_a:+$_a;}$_b"\nmkdir -p $C/$D/x\n'
    script = parse_script(data)
    assert not script.root.has_error
    assert script.data == b'_a="${_a:+$_a;}$_b"\nmkdir -p $C/${D}/x\n'


def test_a_continuation_at_the_end_of_the_file_is_a_blank() -> None:
    for data in (b"echo a \\\n", b"echo a \\"):
        script = parse_script(data)
        assert not script.root.has_error
        assert len(script.data) == len(data)
    assert parse_script(b"echo a \\\\\n").data == b"echo a \\\\\n"  # an escaped backslash


def test_an_expansion_after_a_blank_in_quotes_starts_at_its_dollar() -> None:
    data = b'echo "a ${B}" "x \\\n    ${C}"\n'
    assert _expansions(data) == [("${B}", (0, 8)), ("${C}", (1, 4))]


def test_an_operator_masked_in_a_default_word_does_not_lengthen_a_name() -> None:
    # Found by test_scanner_stalls' hypothesis: bash reads ``${A-$X;}``'s word as ``$X``
    # then a plain ``;``; the mask once read the ``;`` as ``_``, which made the name ``X_``.
    data = b"${A-$X;}\necho ${B:-$Y|z}\n"
    assert b"_" not in parse_script(data).data
    assert _expansions(data) == [
        ("${A-$X;}", (0, 0)),
        ("$X", (0, 4)),
        ("${B:-$Y|z}", (1, 5)),
        ("$Y", (1, 10)),
    ]
