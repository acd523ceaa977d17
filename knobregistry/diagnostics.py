"""A finding of `knobs check`: where, which rule, what is wrong, and how to fix it.

Every check produces these; every reporter (text, json, github, sarif) renders
them. Codes are stable: KNB0xx for the inventory (code versus registry),
KNB1xx for profiles, KNB2xx for docs and waivers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"  # drift: `knobs check` exits 1
    WARNING = "warning"  # reported, does not fail the check
    NOTE = "note"  # information (for example: megatron-core is not installed)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem, one line: ``path:line:column: CODE message``, then the fix."""

    code: str
    path: str  # POSIX, relative to the current folder
    line: int  # 1-based; 0 when the finding is about a whole file
    column: int  # 1-based; 0 when unknown
    message: str
    fix: str | None = None  # a command or a YAML snippet that resolves it
    knob: str | None = None
    severity: Severity = Severity.ERROR

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.code, self.message)

    def location(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.column, 1)}"

    def render(self) -> str:
        """The report line, without the fix."""
        return f"{self.location()}: {self.code} {self.message}"
