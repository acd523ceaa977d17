"""How paths are shown to users: relative, POSIX. The scanner owns the convention."""

from __future__ import annotations

from scanner.conventions import relative_path as shown

__all__ = ["shown"]
