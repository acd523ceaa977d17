"""Which variable names a scan reports: shell-style patterns such as ``PRIMUS_*``."""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase


def matches(name: str, patterns: Sequence[str]) -> bool:
    """Whether ``name`` matches one of the shell-style ``patterns`` (all names when none)."""
    return not patterns or any(fnmatchcase(name, p) for p in patterns)


def dynamic_matches(expression: str, patterns: Sequence[str]) -> bool:
    """Whether an unresolved read may name a matching variable.

    With patterns, a dynamic read is kept when its text holds a pattern's
    literal prefix (``f"PRIMUS_{x}"`` for ``PRIMUS_*``).
    """
    if not patterns:
        return True
    for pattern in patterns:
        prefix = pattern
        for wildcard in "*?[":
            prefix = prefix.split(wildcard, 1)[0]
        if prefix and prefix in expression:
            return True
    return False
