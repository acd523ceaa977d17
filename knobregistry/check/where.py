"""Where a finding is: paths as the user sees them, and positions in the registry.

Scan paths are relative to the registry's folder; diagnostics show them relative
to the current folder. Every family of checks places its findings with this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from knobregistry._text.paths import shown
from knobregistry.check.diagnostics import Diagnostic, Rule

if TYPE_CHECKING:
    from pathlib import Path

    from knobregistry.registry import KeyPath, Registry
    from scanner import Site, Write


@dataclass(frozen=True, slots=True)
class Where:
    """Shows paths relative to the current folder; scan paths are relative to the registry's."""

    registry: Registry
    cwd: Path

    def show(self, rel: str) -> str:
        """A scan path (relative to the registry's folder) as the user sees it."""
        return shown(self.registry.root / rel, self.cwd)

    @property
    def registry_file(self) -> str:
        return shown(self.registry.path, self.cwd)

    def registry_line(self, *key_path: str | int) -> tuple[int, int]:
        return self.registry.position(*key_path)

    def site(self, site: Site | Write) -> str:
        """A site of the scan as ``path:line:column``."""
        return f"{self.show(site.path)}:{site.line}:{site.column}"

    def diagnostic(
        self, rule: Rule, key_path: KeyPath, message: str, fix: str, knob: str
    ) -> Diagnostic:
        """A finding of ``rule`` at the registry's line for ``key_path``."""
        line, column = self.registry.position(*key_path)
        return rule.diagnostic(self.registry_file, line, column, message, fix=fix, knob=knob)
