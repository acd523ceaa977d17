"""KNB006 DynamicRead: under policy `all`, a read whose variable name cannot be resolved."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import INVENTORY, example

if TYPE_CHECKING:
    from knobregistry.check.where import Where
    from scanner import DynamicRead

_LOOP = (
    'import os\n\nfor kind in ("HC",):\n    os.environ.get(f"PRIMUS_{kind}_TRITON", "1") != "0"\n'
)


# KNB006's section of docs/checks.md, below its heading (the site renders it there).
KNB006_SECTION = """\
Under policy `all`, a read in the scope whose variable name the scanner cannot
resolve (an f-string over data read at run time, a wrapper's parameter that no
call gives a literal) might be an unregistered knob; the message says why the
scanner cannot resolve it. It is a **warning**: it does not fail the check,
because such a read can be neither registered nor shown harmless, and failing
would block a merge with no way out. Under policy `default-on` it is not
reported (nothing tells whether it is on by default). Name the variable with a
literal or a constant. (A loop over literal names, `for kind in ("A", "B")`, is
no dynamic read: the scanner reads `PRIMUS_A` and `PRIMUS_B` from it.)

```python
# pkg/loop.py
import os

for kind in open("kinds"):
    os.environ.get(f"PRIMUS_{kind}")
```

    pkg/loop.py:4:5: KNB006 warning: The variable read by `os.environ.get(f"PRIMUS_{kind}")` cannot be resolved (the name is built at run time from values not known statically), so registry.yaml cannot register it.
        Name the variable with a string literal or a module-level constant, so that the knob can be registered.

    Found 1 warning: 4 knobs in 4 files checked against registry.yaml (policy all).
"""  # noqa: E501

KNB006 = Rule(
    code="KNB006",
    name="DynamicRead",
    title="An environment read whose variable name cannot be resolved.",
    description=(
        "Under policy `all`, a read in the scope whose name the scanner cannot resolve "
        "(an f-string over data it cannot know, a parameter no call gives a literal) "
        "might be an unregistered knob; the message says why it cannot be resolved. It "
        "is a warning: it does not fail the check, because such a read can be neither "
        "registered nor proved harmless."
    ),
    example=('for kind in open("kinds"):\n    os.environ.get(f"PRIMUS_{kind}")'),
    examples=example(
        INVENTORY,
        invalid={"pkg/loop.py": _LOOP.replace('("HC",)', 'open("kinds")')},
        valid={"pkg/loop.py": _LOOP},
    ),
    page="checks.md",
    section=KNB006_SECTION,
    family=Family.INVENTORY,
    help=(
        "Name the variable with a string literal or a module-level constant (or pass "
        "it to a wrapper function as a literal), so that the knob can be registered."
    ),
    severity=Severity.WARNING,
)


def dynamic(where: Where, read: DynamicRead) -> Diagnostic:
    """KNB006: a read whose variable name the scanner cannot resolve."""
    message = (
        f"The variable read by `{read.shown}` cannot be resolved ({read.reason}), so "
        f"{where.registry_file} cannot register it."
    )
    fix = (
        "Name the variable with a string literal or a module-level constant, "
        "so that the knob can be registered."
    )
    where_read = where.show(read.path)
    return KNB006.diagnostic(where_read, read.line, read.column, message, fix=fix)
