"""Render a page of docs/: each ``<!-- site:NAME ARGS -->`` marker outside fenced code is
replaced by what the declarations say (the rest of the page is kept byte for byte).

    <!-- site:codes KNB0 -->         the table of codes KNB0..., linked to their sections, as the
                                     generated block `knobs docs` checks (codes:KNB0)
    <!-- site:rules KNB0 [KNB2..] -->  the section of each rule of this page with such a code
    <!-- site:table -->              the table of the codes this page documents
    <!-- site:modes -->              the table of `knobs triage --compare`'s modes
    <!-- site:languages -->          the launcher languages' names, in a sentence
    <!-- site:scanned-files -->      the file names a scan reads by default, in a sentence
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from knobregistry.check.rule_table import (
    documented_on,
    render_codes,
    render_page_table,
    render_sections,
)
from knobregistry.docsgen.markers import fence_after
from knobregistry.triage.modes import docs_table
from scanner.languages import LANGUAGES, Language

_MARKER = re.compile(r"<!-- site:([a-z-]+)((?: [A-Z0-9]+)*) -->")


class MarkerError(ValueError):
    """A marker the site cannot render: its page, line and why."""


def _codes(page: str, args: tuple[str, ...]) -> str:
    (prefix,) = args
    block = [f"<!-- knobs:begin codes:{prefix} -->", "", *render_codes(prefix), ""]
    return "\n".join([*block, f"<!-- knobs:end codes:{prefix} -->"])


def _rules(page: str, args: tuple[str, ...]) -> str:
    rules = documented_on(page, *args)
    if not args or not rules:
        raise MarkerError(f"no rule of {page} has a code that starts with {' or '.join(args)}")
    return render_sections(rules).rstrip("\n")


def _table(page: str, args: tuple[str, ...]) -> str:
    return "\n".join(render_page_table(documented_on(page, *args)))


def _modes(page: str, args: tuple[str, ...]) -> str:
    return "\n".join(docs_table())


def _listed(words: list[str]) -> str:
    """``a``, ``b`` or ``c``."""
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0]


def _languages(page: str, args: tuple[str, ...]) -> str:
    return _listed([f"`{language.value}`" for language in Language])


def _scanned_files(page: str, args: tuple[str, ...]) -> str:
    """Each language's default globs (``*.py``); a language known by names of its own (the
    Dockerfiles) by its name, with those names in parentheses."""
    shown: list[str] = []
    for row in LANGUAGES:
        names = [f"`{name}`" for name in row.names if name not in row.not_scanned]
        if all(name.startswith("`*.") for name in names):
            shown += names
        else:
            shown.append(f"the {row.language.value.capitalize()}s ({', '.join(names)})")
    return ", ".join(shown)


_RENDER: dict[str, Callable[[str, tuple[str, ...]], str]] = {
    "codes": _codes,
    "rules": _rules,
    "table": _table,
    "modes": _modes,
    "languages": _languages,
    "scanned-files": _scanned_files,
}


def render_page(page: str, text: str) -> str:
    """``text``, the page ``page`` of docs/ (``checks.md``), with its markers rendered;
    MarkerError for a marker of no known name or arguments."""
    lines = text.split("\n")
    fence: str | None = None
    for number, line in enumerate(lines):
        fence = fence_after(line, fence)  # as `knobs docs` reads fences
        if fence is None:  # a fence's closing line holds nothing but the fence
            lines[number] = _MARKER.sub(functools.partial(_rendered, page, number), line)
    return "\n".join(lines)


def _rendered(page: str, number: int, marker: re.Match[str]) -> str:
    render = _RENDER.get(marker.group(1))
    if render is None:
        raise MarkerError(f"{page}:{number + 1}: no marker is called site:{marker.group(1)}")
    try:
        return render(page, tuple(marker.group(2).split()))
    except (MarkerError, ValueError) as error:
        raise MarkerError(f"{page}:{number + 1}: {marker.group(0)}: {error}") from error
