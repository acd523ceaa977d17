"""What narrowing hands to libcst: the statements that matter, at their own lines."""

from __future__ import annotations

import textwrap

from scanner.accessors import ENV_WORDS
from scanner.source.narrow import narrow

SOURCE = textwrap.dedent(
    """\
    from __future__ import annotations

    import os
    import sys
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from collections.abc import Iterator
    # a comment between statements
    _PREFIX = "PRIMUS_"
    _KNOB = _PREFIX + "FUSED"
    _OTHER = "UNUSED"


    class Block:
        size = 4

        def forward(self) -> bool:
            return os.environ.get(_KNOB, "1") != "0"

        def backward(self) -> None:
            sys.exit(1)


    def unrelated() -> Iterator[int]:
        yield 1

    # the end
    """
)

# Kept: __future__, os (used), _PREFIX and _KNOB (one through the other), the class
# header and the method that reads. Blanked: sys, the TYPE_CHECKING block (only
# `unrelated` names Iterator), _OTHER, the other members, comments, the trailing lines.
NARROWED = (
    "from __future__ import annotations\n"
    "\n"
    "import os\n" + "\n" * 6 + '_PREFIX = "PRIMUS_"\n'
    '_KNOB = _PREFIX + "FUSED"\n'
    + "\n" * 3
    + "class Block:\n"
    + "\n" * 2
    + "    def forward(self) -> bool:\n"
    '        return os.environ.get(_KNOB, "1") != "0"\n'
)


def test_narrowing_keeps_the_reads_and_the_bindings_they_use() -> None:
    narrowed = narrow(SOURCE, ENV_WORDS)
    assert narrowed is not None
    assert narrowed.text == NARROWED
    assert narrowed.functions == {"Block", "unrelated"}


def test_an_edited_comment_or_unrelated_code_leaves_the_narrowed_text_alone() -> None:
    before = narrow(SOURCE, ENV_WORDS)
    edited = SOURCE.replace("# a comment", "# an edited comment").replace("yield 1", "yield 2")
    after = narrow(edited + "# appended\n", ENV_WORDS)
    assert before is not None and after is not None
    assert after.digest() == before.digest()


def test_a_file_ast_cannot_parse_is_not_narrowed() -> None:
    assert narrow("def broken(:\n", ENV_WORDS) is None


HELPERS = textwrap.dedent(
    """\
    import os


    def flag(name):
        return os.environ.get(name, "0") == "1"


    class Settings:
        def label(self, kind):
            return os.getenv(f"APP_{kind}_LABEL")

        def size(self, value):
            return os.environ.get("APP_SIZE", value)


    def fused():
        return flag("APP_FUSED")


    def titled(settings):
        return settings.label("MAIN")


    def sized(settings):
        return settings.size(4)
    """
)


def test_the_first_narrowing_keeps_the_calls_of_helpers_that_read_by_a_parameter() -> None:
    # `flag` and `label` read the variable their caller names: the functions that call
    # them are kept at once, so finding them needs no second narrowing and parse.
    # `size` reads a name of its own: its caller is not kept.
    narrowed = narrow(HELPERS, ENV_WORDS)
    assert narrowed is not None
    kept = [line.strip() for line in narrowed.text.splitlines() if line.strip()]
    assert 'return flag("APP_FUSED")' in kept
    assert 'return settings.label("MAIN")' in kept
    assert "return settings.size(4)" not in kept
