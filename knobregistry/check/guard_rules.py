"""The KNB2xx codes: waivers, the baseline, and docs generated from the registry.

Documented in docs/waivers.md (KNB201-KNB203) and docs/generated-docs.md
(KNB204, KNB205). Codes never change meaning.
"""

from __future__ import annotations

from knobregistry.check.rules import Rule
from knobregistry.diagnostics import Severity

EXPIRED_WAIVER = Rule(
    code="KNB201",
    name="ExpiredWaiver",
    title="A waiver's expiry date has passed.",
    description=(
        "A registry entry with an `expires` date is a waiver: the knob is let through "
        "(usually `triage: exempt`) until that day. After it, `knobs check` fails on the "
        "entry until the knob is triaged or the waiver renewed. Reported at the `expires` "
        "key in the registry."
    ),
    help=(
        "Triage the knob and remove `expires`; or, if its owner agrees, move `expires` to a "
        "later date."
    ),
)
WAIVER_WITHOUT_OWNER = Rule(
    code="KNB202",
    name="WaiverWithoutOwner",
    title="A waiver names no owner.",
    description=(
        "An entry with an `expires` date names no `owner`, so nobody is asked to triage the "
        "knob when the waiver runs out. A warning: it does not fail the check."
    ),
    help="Add `owner:` (a person, a team or a handle) to the entry.",
    severity=Severity.WARNING,
)
BASELINE_ENTRY_GONE = Rule(
    code="KNB203",
    name="BaselineEntryGone",
    title="The baseline lists a finding that is gone.",
    description=(
        "`knobs check --baseline FILE` hides the findings listed in FILE. A listed finding "
        "that the check no longer reports has been paid off, and the baseline must shrink, "
        "or it would hide the same finding if it came back. Not checked when paths on the "
        "command line narrow the scan."
    ),
    help=(
        "Rewrite the baseline without it: knobs check --baseline FILE --write-baseline FILE "
        "(a baseline may always shrink)."
    ),
)
DOCS_OUT_OF_DATE = Rule(
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
    help="Regenerate the blocks with `knobs docs --write FILE`; edit the registry, not them.",
)
DOCS_MARKERS_INVALID = Rule(
    code="KNB205",
    name="DocsMarkersInvalid",
    title="A doc's knobs markers cannot be read.",
    description=(
        "A `knobs:begin` comment without its `knobs:end` (or the reverse), a block name other "
        "than `knobs`, `external` or `profile:NAME`, or a profile the registry does not "
        "define. The block cannot be checked or regenerated."
    ),
    help="Fix the marker comments (see docs/generated-docs.md), then run `knobs docs --write`.",
)

WAIVER_RULES: tuple[Rule, ...] = (EXPIRED_WAIVER, WAIVER_WITHOUT_OWNER)
BASELINE_RULES: tuple[Rule, ...] = (BASELINE_ENTRY_GONE,)
DOCS_RULES: tuple[Rule, ...] = (DOCS_OUT_OF_DATE, DOCS_MARKERS_INVALID)
GUARD_RULES: tuple[Rule, ...] = (*WAIVER_RULES, *BASELINE_RULES, *DOCS_RULES)
