"""Docs generated from the registry: the knob table and each profile's recipe, kept in sync.

`knobs docs --write FILE` renders blocks between marker comments in a Markdown
file; `knobs check` (KNB204, KNB205: knobregistry.check.rules.docs_in_sync) fails when a
block differs from what the registry renders. The user guide is docs/generated-docs.md.
"""

from knobregistry.docsgen.markers import Block, MarkerProblem, Parsed, parse
from knobregistry.docsgen.render import render_block, render_page
from knobregistry.docsgen.sync import (
    Refreshed,
    doc_registry,
    find_docs,
    refresh,
    registry_ref,
)

__all__ = [
    "Block",
    "MarkerProblem",
    "Parsed",
    "Refreshed",
    "doc_registry",
    "find_docs",
    "parse",
    "refresh",
    "registry_ref",
    "render_block",
    "render_page",
]
