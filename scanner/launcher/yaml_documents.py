"""YAML text composed into nodes, safely, or the error that says why it cannot be."""

from __future__ import annotations

from typing import Final

import yaml

from scanner.model import ScanError

_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def compose(rel: str, text: str) -> list[yaml.Node] | ScanError:
    """The documents of ``text`` as nodes (empty ones left out), or why they cannot be read."""
    try:
        return [d for d in yaml.compose_all(text, Loader=_LOADER) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" on line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "it is not valid YAML"
        return ScanError(rel, f"Cannot parse the YAML{where}: {problem}.")
    except RecursionError:
        return ScanError(rel, "The YAML is nested too deeply to read.")
