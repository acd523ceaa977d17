"""JSON in and out, bounded (issue 18): output that stays valid UTF-8, input nested too
deep as a decoding error."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knobregistry._io.jsontext import dumps, loads


def test_a_lone_surrogate_is_written_as_its_escape() -> None:
    text = dumps({"default": "a\ud800b", "name": "é"}, indent=None)
    assert text == '{"default": "a\\ud800b", "name": "é"}'
    text.encode("utf-8")  # no UnicodeEncodeError
    assert json.loads(text) == {"default": "a\ud800b", "name": "é"}


@given(
    st.recursive(
        st.text() | st.integers(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)
    )
)
def test_any_document_round_trips_through_utf_8(document: object) -> None:
    assert loads(dumps(document).encode("utf-8")) == document


@pytest.mark.parametrize(
    "deep", ["[" * 200_000 + "]" * 200_000, '{"a":' * 200_000 + "1" + "}" * 200_000]
)
def test_a_document_nested_too_deep_is_a_decoding_error(deep: str) -> None:
    with pytest.raises(json.JSONDecodeError, match="nested too deeply to read"):
        loads(deep)
