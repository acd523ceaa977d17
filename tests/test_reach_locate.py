"""The statements around a line, found by bisecting each block, are those a walk of every
statement finds: decorators, `a = 1; b = 2` on one line, a `try` whose `else` comes after
its handlers, `match` cases, nested classes."""

from __future__ import annotations

import ast
import textwrap

import pytest

from scanner.reach.locate import Locator

SOURCES = {
    "decorated": """
        import functools


        @functools.lru_cache
        @staticmethod
        def cached(x):
            a = 1; b = 2
            return a + b + x


        class Runner:
            @property
            def name(self):
                return "r"

            class Inner:
                def deep(self):
                    if True:
                        x = 1
                    else:
                        x = 2
                    return x
        """,
    "try": """
        def load(path):
            try:
                data = open(path).read()
            except OSError:
                data = ""
            except ValueError as error:
                raise SystemExit(error)
            else:
                data = data.strip()
            finally:
                print("done")
            for line in data:
                while line:
                    line = line[1:]
            else:
                pass
            return data
        """,
    "match": """
        def pick(kind):
            match kind:
                case "a":
                    return 1
                case "b" | "c":
                    x = 2; y = 3
                    return x + y
                case _:
                    with open("f") as handle:
                        return handle.read()
        """,
}


def _naive(tree: ast.Module, line: int) -> list[ast.stmt]:
    """Every statement spanning ``line``, outermost first, by walking all of them."""
    found: list[ast.stmt] = []
    block: list[ast.stmt] = tree.body
    while True:
        inner = None
        for statement in block:
            start = min(
                [statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))]
            )
            if start <= line <= (statement.end_lineno or start):
                inner = statement
                break
        if inner is None:
            return found
        found.append(inner)
        block = []
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for item in getattr(inner, name, []) or []:
                block.extend(
                    item.body if isinstance(item, ast.ExceptHandler | ast.match_case) else [item]
                )


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_statements_at_every_line_are_those_a_full_walk_finds(name: str) -> None:
    text = textwrap.dedent(SOURCES[name]).lstrip("\n")
    tree = ast.parse(text)
    locator = Locator(tree, text.splitlines())
    for line in range(1, len(text.splitlines()) + 2):
        assert locator.statements_at(line) == _naive(tree, line), line


def test_two_statements_on_one_line_give_the_first() -> None:
    text = "def f():\n    a = 1; b = 2\n"
    tree = ast.parse(text)
    innermost = Locator(tree, text.splitlines()).innermost(2)
    assert isinstance(innermost, ast.Assign)
    assert innermost.col_offset == 4
