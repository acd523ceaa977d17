"""The names one module binds: plain data, kept apart from the parser.

symbols.py fills it in from a libcst tree and qualifies expressions with it;
cached wrappers carry one, and load without importing libcst.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, kw_only=True)
class Symbols:
    """Name bindings of one module, enough to qualify expressions."""

    module: str
    imports: Mapping[str, str] = field(default_factory=dict)
    functions: frozenset[str] = frozenset()  # module-level defs and classes
    constants: Mapping[str, object] = field(default_factory=dict)
    star_modules: tuple[str, ...] = ()  # modules imported with ``from m import *``
    # Plain constants of module-level classes: class name -> attribute -> value.
    class_constants: Mapping[str, Mapping[str, object]] = field(default_factory=dict)

    def restricted(self, names: Collection[str]) -> Symbols:
        """The same bindings, kept only for ``names`` (what one function uses)."""
        return Symbols(
            module=self.module,
            imports={k: v for k, v in self.imports.items() if k in names},
            functions=frozenset(n for n in self.functions if n in names),
            constants={k: v for k, v in self.constants.items() if k in names},
            star_modules=self.star_modules,
            class_constants={k: v for k, v in self.class_constants.items() if k in names},
        )


def resolve_relative(module: str, is_package: bool, level: int, target: str) -> str:
    """The absolute module named by ``from <level dots><target> import ...``."""
    if level == 0:
        return target
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: max(0, len(parts) - (level - 1))]
    base = ".".join(parts)
    if target:
        return f"{base}.{target}" if base else target
    return base
