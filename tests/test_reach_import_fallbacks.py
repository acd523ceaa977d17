"""The handler of a failed import of the tree's own module is the code of a broken install,
which a run of the tree does not take: what it binds reaches nothing (unsloth_zoo 2026.10.9
rl_replacements.py:452-456, reduced: ``except ImportError: compile_function =
torch.compile``, where the ``try`` imports unsloth_zoo's own ``_maybe_compile``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Role
from tests.scanned import role_facts, scanned_knob

RL = (
    "import os\n\nimport torch\n\n\n"
    "def post_forward(x):\n    return x * 2\n\n\n"
    "def chunked(x):\n"
    "    try:\n"
    "        from {imported} import maybe_compile as compile_function\n"
    "    except ImportError:\n"
    "        compile_function = torch.compile\n"
    "    compiled = compile_function(dynamic=True)(post_forward)\n"
    "    return compiled(x)\n\n\n"
    "def step(x):\n"
    '    if os.environ.get("X_SEQ_PACKING", "1") == "1":\n'
    "        return chunked(x)\n"
    "    return x + 1\n"
)
COMMON = "def maybe_compile(**kwargs):\n    return lambda fn: fn\n"


@pytest.mark.parametrize(
    ("imported", "role"),
    [
        ("pkg.common", Role.FEATURE),  # the tree's own module: the handler does not run
        ("outside.common", Role.KERNEL),  # another package's: where it is missing, it does
    ],
)
def test_a_failed_import_of_the_trees_own_module_is_not_a_path(
    tmp_path: Path, imported: str, role: Role
) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/common.py": COMMON,
        "pkg/rl.py": RL.replace("{imported}", imported),
    }
    knob = scanned_knob(tmp_path, files, "X_SEQ_PACKING")
    assert role_facts(knob)[0] is role
