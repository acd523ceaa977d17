"""Hypothesis strategies: generated gate code, shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

NAME = "PRIMUS_PROP"
WORDS = ("0", "1", "", "true", "false", "yes", "no", "on", "off", "TRUE", "2")


# Strings a gate may compare with besides the on/off words: any short text.
TEXT = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC_-0123456789", min_size=1, max_size=6)


@st.composite
def gate_sources(draw: st.DrawFn) -> str:
    """A module gating on one variable: equality and membership with words and arbitrary
    strings, truth tests, numbers compared with ints, in three places a gate stands."""
    default = draw(st.sampled_from((None, *WORDS, "fast", "triton")) | TEXT)
    read = draw(st.sampled_from(("os.environ.get", "os.getenv")))
    value = f"{read}({NAME!r})" if default is None else f"{read}({NAME!r}, {default!r})"
    if default is not None:
        for method in draw(
            st.lists(st.sampled_from((".lower()", ".strip()", ".upper()")), max_size=2)
        ):
            value += method
    word = draw(st.sampled_from(WORDS) | TEXT)
    words = tuple(
        draw(st.lists(st.sampled_from(WORDS) | TEXT, min_size=1, max_size=4, unique=True))
    )
    number = draw(st.integers(0, 4))
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
                f"int({value}) == {number}",
                f"int({value}) > {number}",
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


# Ways to spell the read, each with the import it needs.
READS = (
    ("import os", "os.environ.get({name}, '1') == '0'"),
    ("import os as _os", "_os.getenv({name}) in ('1', 'true')"),
    ("from os import environ as ENV", "ENV.get({name}, '0') != '0'"),
    ("from os import getenv", "getenv({name}) is not None"),
    ("import os", "{name} in os.environ"),
    ("import os\n\n_ENV = os.environ", "_ENV.get({name}) == '1'"),
)
NOISE = (
    "import sys",
    "import json as _json",
    "from typing import TYPE_CHECKING",
    "if TYPE_CHECKING:\n    from collections.abc import Iterator",
    "try:\n    import numpy as np\nexcept ImportError:\n    np = None",
    "_UNUSED = 'PRIMUS_OTHER'",
    "# a comment that says os.environ",
    "def unrelated(x):\n    '''Not a read: os.environ.'''\n    return x + 1",
    "class Other:\n    size = 4\n\n    def run(self):\n        return sys.argv",
)


@st.composite
def module_sources(draw: st.DrawFn) -> str:
    """A whole module around one read: how the name is built, where the read sits,
    and unrelated imports, constants, comments and code in any order."""
    imported, read = draw(st.sampled_from(READS))
    naming = draw(st.sampled_from(("literal", "constant", "two constants")))
    if naming == "literal":
        bindings, name = [], repr(NAME)
    elif naming == "constant":
        bindings, name = [f"_KNOB = {NAME!r}"], "_KNOB"
    else:
        bindings, name = ["_PREFIX = 'PRIMUS_'", "_KNOB = _PREFIX + 'PROP'"], "_KNOB"
    expression = read.format(name=name)
    place = draw(st.sampled_from(("module", "function", "method")))
    if place == "module":
        code = f"GATE = {expression}"
    elif place == "function":
        code = f"def gate():\n    return {expression}"
    else:
        code = f"class Block:\n    width = 8\n\n    def gate(self):\n        return {expression}"
    noise = draw(st.lists(st.sampled_from(NOISE), max_size=4, unique=True))
    # Imports and constants come before the code that uses them; noise goes anywhere.
    ordered = [imported, *bindings, code]
    for piece in noise:
        ordered.insert(draw(st.integers(0, len(ordered))), piece)
    return "\n\n\n".join(ordered) + "\n"
