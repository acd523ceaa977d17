"""Hypothesis strategies: generated gate code, shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

NAME = "PRIMUS_PROP"
WORDS = ("0", "1", "", "true", "false", "yes", "no", "on", "off", "TRUE", "2")


@st.composite
def gate_sources(draw: st.DrawFn) -> str:
    default = draw(st.sampled_from((None, *WORDS)))
    read = draw(st.sampled_from(("os.environ.get", "os.getenv")))
    value = f"{read}({NAME!r})" if default is None else f"{read}({NAME!r}, {default!r})"
    if default is not None:
        for method in draw(
            st.lists(st.sampled_from((".lower()", ".strip()", ".upper()")), max_size=2)
        ):
            value += method
    word = draw(st.sampled_from(WORDS))
    words = tuple(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True)))
    expression = draw(
        st.sampled_from(
            (
                f"{value} == {word!r}",
                f"{value} != {word!r}",
                f"{value} in {words!r}",
                f"{value} not in {words!r}",
                f"bool({value})",
                f"{NAME!r} in os.environ",
                f"{NAME!r} in os.environ and os.environ[{NAME!r}] == {word!r}",
                value,
            )
        )
    )
    if draw(st.booleans()):
        expression = f"not ({expression})"
    form = draw(st.sampled_from(("module", "return", "branch")))
    if form == "module":
        return f"import os\n\nGATE = {expression}\n"
    if form == "return":
        return f"import os\n\n\ndef gate():\n    return {expression}\n"
    return (
        "import os\n\n\ndef gate():\n"
        f"    if {expression}:\n        return 'fused'\n    return 'eager'\n"
    )
