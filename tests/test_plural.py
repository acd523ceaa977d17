"""How counts are written in messages: the count with its noun, and the parts that are not
zero joined by "and"."""

from __future__ import annotations

import pytest

from knobregistry._text.plural import counted, nonzero


@pytest.mark.parametrize(
    ("n", "text"), [(0, "0 knobs"), (1, "1 knob"), (2, "2 knobs"), (11, "11 knobs")]
)
def test_counted_is_plural_unless_one(n: int, text: str) -> None:
    assert counted(n, "knob") == text


@pytest.mark.parametrize(
    ("parts", "text"),
    [
        ([], ""),
        ([(0, "0 errors"), (0, "0 notes")], ""),
        ([(2, "2 errors"), (0, "0 notes")], "2 errors"),
        ([(0, "0 errors"), (1, "1 note")], "1 note"),
        ([(2, "2 errors"), (1, "1 warning"), (3, "3 notes")], "2 errors and 1 warning and 3 notes"),
    ],
)
def test_nonzero_joins_the_parts_counted_in_order(parts: list[tuple[int, str]], text: str) -> None:
    assert nonzero(parts) == text
