"""Positions inside f-strings: exact, and found without generating the whole module's code.

Pythons before 3.12 give wrong positions to the expressions inside an f-string
(and the same position to two equal ones), so the scanner places a node inside
one relative to the f-string itself. Each case pins the read's line and column,
checks them against libcst's PositionProvider (the whole-file scan), and checks
that the narrow scan never fell back to it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from scanner import Settings, scan
from tests.conftest import write_tree

CASES = {
    "module level": (
        """
        import os
        X = f"<{os.environ.get('A')}>"
        """,
        [("A", 2, 9)],
    ),
    "in a function": (
        """
        import os


        def f():
            return f"on={os.getenv('A', '1')}"
        """,
        [("A", 5, 18)],
    ),
    "triple-quoted, over lines, in a method": (
        '''
        import os


        class C:
            def f(self):
                return f"""
        head
          {os.getenv('A')} and {os.environ['B']}
        """
        ''',
        [("A", 8, 4), ("B", 8, 25)],
    ),
    "implicit concatenation over lines in brackets": (
        """
        import os


        def f():
            if True:
                msg = ("prefix "
                       f"{os.environ.get('A')}"
                         f"{os.getenv('B')}" "suffix")
        """,
        [("A", 7, 19), ("B", 8, 21)],
    ),
    "parenthesized": (
        """
        import os


        def f():
            return ((f"{os.getenv('A')}"))
        """,
        [("A", 5, 17)],
    ),
    "nested f-strings": (
        '''
        import os


        def f():
            return f"""{f'{os.getenv("A")}'}"""
        ''',
        [("A", 5, 20)],
    ),
    "the same read twice": (
        """
        import os


        def f():
            return f"{os.getenv('A')} {os.getenv('A')}"
        """,
        [("A", 5, 15), ("A", 5, 32)],
    ),
    "after wide characters": (
        """
        import os


        def f():
            return "é" + f"ü{os.getenv('A')}"
        """,
        [("A", 5, 22)],
    ),
    "tab-indented, with a continuation line": (
        "import os\n\n\ndef f():\n\tif True:\n\t\treturn [\n\t\t\tf\"{os.getenv('A')}\"]\n",
        [("A", 7, 7)],
    ),
    "CRLF line endings": (
        b'import os\r\n\r\n\r\ndef f():\r\n    if True:\r\n        return f"""\r\n'
        b'head {os.getenv("A")}\r\n  {os.environ["B"]}""" + (\r\n'
        b"            f\"{os.getenv('C')}\")\r\n",
        [("A", 7, 7), ("B", 8, 4), ("C", 9, 16)],
    ),
    "a parameter default": (
        """
        import os


        class C:
            def f(self, x=f"{os.getenv('A')}"):
                return x
        """,
        [("A", 5, 22)],
    ),
}


def _sites(root: Path, *, narrow: bool) -> list[tuple[str, int, int]]:
    result = scan([root], Settings(narrow=narrow), root=root, jobs=1)
    return sorted((s.name, s.line, s.column) for k in result.knobs for s in k.sites)


@pytest.mark.parametrize(("source", "expected"), CASES.values(), ids=CASES.keys())
def test_a_read_inside_an_f_string_is_placed_exactly(
    tmp_path: Path,
    source: str | bytes,
    expected: list[tuple[str, int, int]],
) -> None:
    write_tree(tmp_path, {"mod.py": source})
    assert _sites(tmp_path, narrow=False) == expected  # PositionProvider on the whole file
    narrowed = scan([tmp_path], Settings(narrow=True), root=tmp_path, jobs=1)
    assert sorted((s.name, s.line, s.column) for k in narrowed.knobs for s in k.sites) == expected
    assert narrowed.stats.analyses == 1
    assert narrowed.stats.position_fallbacks == 0  # placed by the anchors, not by libcst


def test_anchors_that_do_not_match_fall_back_to_libcst_positions_and_say_so() -> None:
    """The fallback the counter above counts: anchors of another text never place a node."""
    from scanner.interpret.module import ParsedModule
    from scanner.source.narrow import Source
    from scanner.syntax.index import WrapperIndex

    text = 'import os\nA = os.environ.get("A", "1") != "0"\n'
    other = 'import os\nB = os.getenv("B") == "1" and os.getenv("C") == "1"\n'
    mine, theirs = Source.parse(text), Source.parse(other)
    assert mine is not None and theirs is not None
    narrowed, foreign = mine.narrow(("environ", "getenv")), theirs.narrow(("environ", "getenv"))
    right = ParsedModule.parse("m.py", "m", text, narrowed)
    right.events(WrapperIndex())
    assert right.fell_back is False
    wrong = ParsedModule.parse("m.py", "m", text, replace(narrowed, anchors=foreign.anchors))
    events = wrong.events(WrapperIndex())
    assert wrong.fell_back is True
    assert [e.line for e in events] == [e.line for e in right.events(WrapperIndex())]
