"""JSON in and out, bounded (issue 18): output that stays valid UTF-8, input nested too
deep as a decoding error."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knobregistry.jsontext import dumps, loads


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


# Strings without lone surrogates, which dumps escapes and json.dumps writes as they are.
TEXT = st.text(st.characters(exclude_categories=["Cs"]))
SCALARS = TEXT | st.integers() | st.floats() | st.booleans() | st.none()
KEYS = TEXT | st.integers() | st.floats() | st.booleans() | st.none()


@given(
    st.recursive(
        SCALARS,
        lambda inner: st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(KEYS, inner),
    ),
    st.integers(min_value=0, max_value=4),
)
def test_indented_output_is_what_json_dumps_writes(document: object, indent: int) -> None:
    assert dumps(document, indent=indent) == json.dumps(document, indent=indent, ensure_ascii=False)


@given(st.dictionaries(TEXT, st.lists(TEXT | st.integers())))
def test_sorted_keys_are_written_as_json_dumps_sorts_them(document: dict[str, object]) -> None:
    assert dumps(document, sort_keys=True) == json.dumps(
        document, indent=2, sort_keys=True, ensure_ascii=False
    )


@pytest.mark.parametrize("document", [{"a": {1, 2}}, {(1, 2): "a"}, [1, object()]])
def test_what_json_cannot_write_fails_as_json_dumps_fails(document: object) -> None:
    with pytest.raises(TypeError) as raised:
        dumps(document)
    with pytest.raises(TypeError) as expected:
        json.dumps(document, indent=2)
    assert str(raised.value) == str(expected.value)


def test_a_document_that_holds_itself_fails_as_json_dumps_fails() -> None:
    circular: list[object] = [1]
    circular.append(circular)
    with pytest.raises(ValueError, match=r"^Circular reference detected$"):
        dumps(circular)
