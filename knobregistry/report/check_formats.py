"""The output formats of `knobs check`, as a registry of renderers: a format is one entry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knobregistry.report.check_github import render_check_github
from knobregistry.report.check_json import render_check_json
from knobregistry.report.check_sarif import render_check_sarif
from knobregistry.report.check_text import print_check_rich, render_check_text

if TYPE_CHECKING:
    from rich.console import Console

    from knobregistry.check.run import CheckResult


@dataclass(frozen=True, slots=True)
class Renderer:
    """One format: what `--help` says of it, its text, and its view on a terminal (if any)."""

    help: str
    render: Callable[[CheckResult], str]
    rich: Callable[[CheckResult, Console], None] | None = None


CHECK_FORMATS: dict[str, Renderer] = {
    "text": Renderer("one line per problem and its fix", render_check_text, print_check_rich),
    "json": Renderer("a stable document", render_check_json),
    "github": Renderer("workflow annotations", render_check_github),
    "sarif": Renderer("SARIF 2.1.0 for GitHub code scanning", render_check_sarif),
}


def formats_help() -> str:
    """``--format``'s help: each format and what it is."""
    return "; ".join(f"{name}: {r.help}" for name, r in CHECK_FORMATS.items()) + "."
