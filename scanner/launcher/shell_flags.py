"""The command-line flags a launcher's test turns on: ``if [ ${X:-true} == true ]; then
OPTS="$OPTS --cuda-graph-impl=local"; fi`` passes ``--cuda-graph-impl=local`` when X is
``true``. The flags are recorded on the test's read of X (``Site.passes``), so that what the
program documents of them can say what X switches (scanner.reach.passed_flags)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from scanner.launcher.shell_tests import Condition
from scanner.model import Site

# A long flag as a word of the branch's text: `--cuda-graph-impl=local`, `--use-fused`; the
# value stops at a quote, a space or an expansion.
_FLAG: Final = re.compile(
    r"(?<![\w$-])(--[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?:=[^\s\"'$;)`]+)?)"
)
MAX_FLAGS: Final = 16  # flags kept per branch (real launchers: 4 at most)


def branch_flags(text: str) -> tuple[str, ...]:
    """The long flags in a branch's text, in order, each once."""
    return tuple(dict.fromkeys(m.group(1) for m in _FLAG.finditer(text)))[:MAX_FLAGS]


def with_passes(
    sites: list[Site], tested: range, condition: Condition, flags: Sequence[str]
) -> None:
    """Record on the reads in ``tested`` of the variable a one-fact ``condition`` tests
    (``X == v``) that the branch it guards passes ``flags`` when the variable is ``v``."""
    if not flags or not condition.exact or len(condition.facts) != 1:
        return
    fact = condition.facts[0]
    if not fact.equal:
        return
    for index in tested:
        site = sites[index]
        if site.name == fact.name:
            passes = (*site.passes, *((fact.value, flag) for flag in flags))
            sites[index] = replace(site, passes=passes)
