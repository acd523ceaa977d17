"""Processes a side starts that run the program again (``torchrun ... __file__``).

A launcher that re-runs its own file under torchrun runs that file's ``__main__`` block in
the new process: the side reaches what that block reaches. One that starts the program
otherwise (``sys.executable``, ``sys.argv``) hands the work to code the scan cannot name:
the side may reach any kernel. A process that only asks the machine something
(``subprocess.check_output(["nvidia-smi", ...])``) runs none of the program's code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Final

from scanner.reach.modules import Module
from scanner.source.ast_walk import children

# Calls that start another program (https://docs.python.org/3/library/subprocess.html,
# https://docs.python.org/3/library/os.html#process-management,
# https://docs.python.org/3/library/asyncio-subprocess.html).
PROCESS_STARTERS: Final = frozenset(
    {
        *(f"subprocess.{f}" for f in ("run", "call", "check_call", "check_output", "Popen")),
        "os.system",
        "os.popen",
        "os.posix_spawn",
        "os.posix_spawnp",
        *(f"os.exec{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
        *(f"os.spawn{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
        "asyncio.create_subprocess_exec",
        "asyncio.create_subprocess_shell",
    }
)
# What a command names when it runs this program again: its own file, its arguments, or
# the interpreter that runs it.
_PROGRAM: Final = frozenset({"sys.argv", "sys.executable", "sys.orig_argv"})

# The values a local name of the function around a node is bound to.
Bindings = Callable[[ast.Name], Sequence[ast.expr]]


def program_run(module: Module, call: ast.Call, bindings: Bindings) -> str | None:
    """What of this program the command ``call`` starts runs: ``"file"`` where it names the
    module's own file (``__file__``: its ``if __name__ == "__main__":`` block runs),
    ``"program"`` where it names the program otherwise (``sys.argv``, ``sys.executable``),
    in its arguments or in what a local among them is bound to; None for another program."""
    seen: set[int] = set()
    stack: list[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    found = None
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ast.Name) and node.id == "__file__":
            return "file"
        if isinstance(node, ast.Attribute | ast.Name) and module.resolve(node) in _PROGRAM:
            found = "program"
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            stack.extend(bindings(node))
        stack.extend(children(node))
    return found


def main_block(module: Module) -> list[ast.stmt]:
    """The statements of the module's ``if __name__ == "__main__":`` blocks."""
    return [
        statement
        for node in module.tree.body
        if isinstance(node, ast.If) and _is_main_test(node.test)
        for statement in node.body
    ]


def _is_main_test(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )
