"""`[tool.knobs] trace_secrets`: a project's own secret patterns, besides the built-in ones.

```toml
[tool.knobs]
trace_secrets = ["SALT", "SIGNING_SEED"]   # name parts: APP_SALT, X_SIGNING_SEED_V2
```

Each is matched as python_hook.secret matches its words: whole parts of a name, in any
case. The pyproject.toml read is the nearest one with a ``[tool.knobs]`` table, as for
the scanner settings.
"""

from __future__ import annotations

import re
from pathlib import Path

from knobregistry.registry.pyproject import PYPROJECT, folders_up, problem, tool_table

MOST = 64  # patterns, and characters in one
_PATTERN = re.compile(r"[A-Za-z0-9_]*[A-Za-z0-9][A-Za-z0-9_]*")


def trace_secrets(start: Path) -> tuple[str, ...]:
    """The ``trace_secrets`` of the nearest pyproject.toml with a ``[tool.knobs]`` table,
    from ``start`` up to the repository root; raises PyprojectError when malformed."""
    for folder in folders_up(start):
        pyproject = folder / PYPROJECT
        table = tool_table(pyproject)
        if table is not None:
            return _patterns(table.get("trace_secrets", []), pyproject.as_posix())
    return ()


def _patterns(value: object, shown: str) -> tuple[str, ...]:
    if (
        not isinstance(value, list)
        or len(value) > MOST
        or not all(isinstance(v, str) for v in value)
    ):
        raise problem(
            shown,
            f"[tool.knobs] trace_secrets must be a list of at most {MOST} name parts, such "
            'as ["SALT", "SIGNING_SEED"].',
        )
    for pattern in value:
        if len(pattern) > MOST or not _PATTERN.fullmatch(pattern):
            raise problem(
                shown,
                f"[tool.knobs] trace_secrets: {pattern!r} is not a name part; give letters, "
                f"digits and underscores (SIGNING_SEED, at most {MOST}), matched as whole "
                "parts of a variable's name.",
            )
    return tuple(value)
