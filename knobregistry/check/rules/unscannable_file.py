"""KNB007 UnscannableFile: a file in the scope that could not be read or parsed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import INVENTORY, example

if TYPE_CHECKING:
    from knobregistry.check.where import Where
    from scanner import ScanError

# KNB007's section of docs/checks.md, below its heading (the site renders it there).
KNB007_SECTION = """\
A file in the scope that could not be read or parsed (a syntax error, a file
that is not UTF-8, one over the size limit, a dangling symlink, a symlink to a
file outside the folders scanned). Its knobs are
unknown, so the check cannot vouch for it and fails. The position is the one the
error names, else the file as a whole. If the file is yours, fix it; if it is
code you do not edit (a vendored copy, an installed library), the fix gives the
`scan.exclude` entry that leaves it out.

    pkg/broken.py:2:19: KNB007 error: This file could not be scanned, so its knobs are not checked: Syntax error at line 2, column 19: '(' was never closed.
        If the file is yours, fix it. If it is code you do not edit (a vendored or installed library), leave it out of the scan in registry.yaml:
          scan:
            exclude:
              - "pkg/broken.py"

    Found 1 error: 4 knobs in 4 files checked against registry.yaml (policy all).
"""  # noqa: E501

KNB007 = Rule(
    code="KNB007",
    name="UnscannableFile",
    title="A file in the scope could not be scanned.",
    description=(
        "A file in the scope could not be read or parsed (a syntax error, not UTF-8, "
        "too large). Its knobs are unknown, so the check cannot vouch for it and fails."
    ),
    example=('# pkg/broken.py\nx = os.environ.get("PRIMUS_X"'),
    examples=example(
        INVENTORY,
        invalid={"pkg/broken.py": 'import os\nx = os.environ.get("PRIMUS_X"\n'},
        valid={"pkg/broken.py": "import os\nx = 1\n"},
    ),
    page="checks.md",
    section=KNB007_SECTION,
    family=Family.INVENTORY,
    help=(
        "If the file is yours, fix it; if it is code you do not edit (a vendored or "
        "installed library), add its path to `scan.exclude` in the registry."
    ),
)


# Where the scanner's error message places the problem ("Syntax error at line 2, column 19").
_POSITION = re.compile(r"\bline (\d+)(?:, column (\d+))?")


def unscannable(where: Where, error: ScanError) -> Diagnostic:
    """KNB007: a file in the scope that could not be read or parsed."""
    from knobregistry.registry.yaml_format import yaml_string

    found = _POSITION.search(error.message)
    line = int(found.group(1)) if found else 0
    column = int(found.group(2)) if found and found.group(2) else 0
    detail = error.message.rstrip(".")
    message = f"This file could not be scanned, so its knobs are not checked: {detail}."
    fix = "\n".join(
        [
            "If the file is yours, fix it. If it is code you do not edit (a vendored or "
            f"installed library), leave it out of the scan in {where.registry_file}:",
            "  scan:",
            "    exclude:",
            f"      - {yaml_string(error.path)}",
        ]
    )
    return KNB007.diagnostic(where.show(error.path), line, column, message, fix=fix)
