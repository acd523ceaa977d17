"""KNB204 DocsOutOfDate, KNB205 DocsMarkersInvalid: the generated blocks of the docs that
belong to the registry, against what it renders (knobregistry.docsgen)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import INVENTORY, example

if TYPE_CHECKING:
    from pathlib import Path

    from knobregistry.docsgen import MarkerProblem
    from knobregistry.docsgen.render import CodeTable
    from knobregistry.registry import Registry

# The generated docs' examples: a page whose block of knobs the registry renders.
_DOC = """\
<!-- knobs:registry registry.yaml -->

<!-- knobs:begin knobs -->

| knob | gates | default | triage | cost when off |
| --- | --- | --- | --- | --- |
| `PRIMUS_HC_TRITON` | — | `"1"` (on) | **breaks-bitwise** | — |

<!-- knobs:end knobs -->
"""


# KNB204's section of docs/generated-docs.md, below its heading (the site renders it there).
KNB204_SECTION = """\
A generated block differs from what the registry renders: it was edited by hand,
or the registry changed since the block was written. Reported at the first line
that differs. Fix: `knobs docs --write FILE`; edit the registry, not the block.
"""

KNB204 = Rule(
    code="KNB204",
    name="DocsOutOfDate",
    title="A generated block of a doc differs from what the registry renders.",
    description=(
        "A Markdown file holds blocks between `<!-- knobs:begin NAME -->` and "
        "`<!-- knobs:end NAME -->` comments that `knobs docs --write` renders from the "
        "registry (the knob table, external variables, a profile's recipe). The block was "
        "edited by hand, or the registry changed since it was written. Reported at the first "
        "line that differs."
    ),
    example=("<!-- knobs:begin knobs -->\n(a table edited by hand)\n<!-- knobs:end knobs -->"),
    examples=example(
        INVENTORY,
        invalid={"knobs.md": _DOC.replace("| `PRIMUS_HC_TRITON` |", "| `PRIMUS_HC` |")},
        valid={"knobs.md": _DOC},
    ),
    page="generated-docs.md",
    section=KNB204_SECTION,
    family=Family.DOCS,
    help="Regenerate the blocks with `knobs docs --write FILE`; edit the registry, not them.",
)

# KNB205's section of docs/generated-docs.md, below its heading (the site renders it there).
KNB205_SECTION = """\
The markers of a doc cannot be used: a `knobs:begin` without its `knobs:end` (or
the reverse), a block name other than `knobs`, `external` or `profile:NAME`, a
profile the registry does not define, a `knobs:registry` marker that names no
file, or a fenced code block never closed over a marker (or before the end of a
file that `--write` would append the blocks to), which makes the marker code.

    docs/bad.md:1:1: KNB205 error: The markers of this doc cannot be used: knobs:end knobs closes no knobs:begin.
        Fix the marker comments (`knobs rule KNB205`), then: knobs docs --write docs/bad.md
"""  # noqa: E501

KNB205 = Rule(
    code="KNB205",
    name="DocsMarkersInvalid",
    title="A doc's knobs markers cannot be read.",
    description=(
        "A `knobs:begin` comment without its `knobs:end` (or the reverse), a block name other "
        "than `knobs`, `external` or `profile:NAME`, a profile the registry does not "
        "define, or a fenced code block never closed over a marker (which it makes code). "
        "The block cannot be checked or regenerated."
    ),
    example=("<!-- knobs:begin knobs -->\n(no knobs:end after it)"),
    examples=example(
        INVENTORY,
        invalid={"knobs.md": _DOC.replace("<!-- knobs:end knobs -->", "")},
        valid={"knobs.md": _DOC},
    ),
    page="generated-docs.md",
    section=KNB205_SECTION,
    family=Family.DOCS,
    help="Fix the marker comments (the example shows them), then run `knobs docs --write`.",
)


def doc_diagnostics(
    doc: Path, registry: Registry, *, cwd: Path, codes: CodeTable
) -> list[Diagnostic]:
    """KNB204 for each block of ``doc`` that ``registry`` renders otherwise (``codes``: the
    table of rules its `codes:PREFIX` blocks show); KNB205 for markers."""
    from knobregistry._text.paths import shown
    from knobregistry.docsgen import MarkerProblem, doc_registry, parse, refresh
    from knobregistry.docsgen.sync import read_doc

    text = read_doc(doc)
    parsed = parse(text)
    file = shown(doc, cwd)
    owner = doc_registry(doc, parsed)
    if owner is None and parsed.registry is not None:
        line = (parsed.registry_line or 0) + 1
        message = f"knobs:registry names '{parsed.registry}', which is not a file."
        return [marker_diagnostic(file, MarkerProblem(line, message))]
    if not parsed.blocks and not parsed.problems:
        return []
    result = refresh(text, registry, codes=codes)
    found = [marker_diagnostic(file, p) for p in result.problems]
    for name, line in result.stale:
        found.append(
            KNB204.diagnostic(
                file,
                line,
                1,
                f"The generated block '{name}' differs from what {shown(registry.path, cwd)} "
                "renders: it was edited by hand, or the registry changed since it was written.",
                fix=f"Regenerate it (edit the registry, not the block): knobs docs --write {file}",
            )
        )
    return sorted(found, key=lambda d: d.sort_key)


def marker_diagnostic(file: str, problem: MarkerProblem) -> Diagnostic:
    """KNB205 for a problem of a doc's markers."""
    return KNB205.diagnostic(
        file,
        problem.line,
        1,
        f"The markers of this doc cannot be used: {problem.message}",
        fix=f"Fix the marker comments (`knobs rule KNB205`), then: knobs docs --write {file}",
    )


def docs_diagnostics(registry: Registry, *, cwd: Path, codes: CodeTable) -> list[Diagnostic]:
    """Every docs finding for the docs under the registry's folder that belong to it."""
    from knobregistry.docsgen import find_docs

    found: list[Diagnostic] = []
    for doc in find_docs(registry):
        found.extend(doc_diagnostics(doc, registry, cwd=cwd, codes=codes))
    return sorted(found, key=lambda d: d.sort_key)
