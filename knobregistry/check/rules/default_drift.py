"""KNB003 DefaultDrift: a site whose default (or on/off state) is not the registered one, and
a knob whose recorded `sites:` no longer read it as recorded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import INVENTORY, MODEL, example

if TYPE_CHECKING:
    from knobregistry.check.where import Where
    from knobregistry.registry import KnobEntry, Registry, SiteRecord
    from knobregistry.registry.site_reads import SiteRead
    from scanner import Knob, Site

# KNB003's section of docs/checks.md, below its heading (the site renders it there).
KNB003_SECTION = """\
A site whose default differs from the registered `default`, or whose gate is on
(or off) by default where the registered `default_on` says otherwise (a value
site is compared on `default` only; `default_on: null` registers a value knob).
The triage was made for the registered default, so a change needs a look.
Reported at each differing site, naming the registry's line. Not reported for a
knob whose sites conflict with each other (KNB004): fix that first. For a knob
whose entry records its sites (`sites`, see KNB004), a site that reads it
otherwise than recorded, a recorded site that is gone, and a new site that reads
it another way are each reported here, with the `sites` to record if the change
is intended.

`"PRIMUS_HC_TRITON", "1"` becomes `"PRIMUS_HC_TRITON", "0"`:

    pkg/model.py:5:6: KNB003 error: PRIMUS_HC_TRITON falls back to "0" here (off by default), but registry.yaml:11 registers default "1" (on by default).
        If the change is intended, set in registry.yaml, under knobs.PRIMUS_HC_TRITON:
          default: "0"
          default_on: false
        and review its triage; otherwise restore the default in the code.

    Found 1 error: 4 knobs in 3 files checked against registry.yaml (policy all).
"""  # noqa: E501

KNB003 = Rule(
    code="KNB003",
    name="DefaultDrift",
    title="The code's default differs from the registry's.",
    description=(
        "A site falls back to a different value than the registered `default`, or its "
        "gate is on (or off) by default where the registered `default_on` says "
        "otherwise, or a site reads a knob otherwise than its entry's `sites` records. "
        "The knob's triage was made for the registered default, so a change "
        "needs a look. Reported at the site, naming the registry's line. Not reported "
        "for a knob with conflicting sites (KNB004): fix that first."
    ),
    example=(
        '# registry.yaml: PRIMUS_HC_TRITON: {default: "1", default_on: true}\n'
        'HC = os.environ.get("PRIMUS_HC_TRITON", "0") != "0"'
    ),
    examples=example(
        INVENTORY,
        invalid={"pkg/model.py": MODEL.replace('"1")', '"0")')},
        valid={},
    ),
    page="checks.md",
    section=KNB003_SECTION,
    family=Family.INVENTORY,
    help=(
        "If the change is intended, update `default` / `default_on` in the registry as "
        "the fix shows and review the triage; otherwise restore the default in the code."
    ),
)


def default_drift(where: Where, knob: Knob, entry: KnobEntry, site: Site) -> Diagnostic:
    """KNB003: a site whose default or on/off state differs from the entry."""
    from knobregistry.registry.yaml_format import quoted, site_state, yaml_bool, yaml_string

    key = "default" if entry.default is not None else "default_on"
    line, _ = where.registry_line("knobs", knob.name, key)
    registry = where.registry_file
    code_side = (
        f"falls back to {quoted(site.default)} here"
        if site.default is not None
        else "has no default here"
    )
    message = (
        f"{knob.name} {code_side} ({site_state(site)}), but {registry}:{line} registers "
        f"{_registered(entry, where, knob.name)}."
    )
    lines = [f"If the change is intended, set in {registry}, under knobs.{knob.name}:"]
    if entry.default is not None:
        lines.append(
            f"  default: {yaml_string(site.default)}" if site.default else "  (remove `default`)"
        )
    if states_default_on(where.registry, knob.name):
        value = site.default_on if site.default_on is not None else knob.default_on
        lines.append(f"  default_on: {yaml_bool(value)}")
    lines.append("and review its triage; otherwise restore the default in the code.")
    return KNB003.diagnostic(
        where.show(site.path),
        site.line,
        site.column,
        message,
        fix="\n".join(lines),
        knob=knob.name,
    )


def states_default_on(registry: Registry, name: str) -> bool:
    """Whether the entry writes `default_on` (null included), not merely leaves it out."""
    return ("knobs", name, "default_on") in registry.positions


def _registered(entry: KnobEntry, where: Where, name: str) -> str:
    from knobregistry.registry.yaml_format import quoted

    state = None
    if states_default_on(where.registry, name):
        if entry.default_on is None:
            state = "a value knob"
        else:
            state = "on by default" if entry.default_on else "off by default"
    if entry.default is None:
        return f"it as {state}"
    return f"default {quoted(entry.default)}" + (f" ({state})" if state else "")


# A knob whose entry records how each site reads it (`sites:`): the code must read it so. The
# record accepts sites that disagree in code the project does not own; it is not a waiver. A
# site that changes its default, off value or scope, a site that is gone, and a new site that
# reads the knob another way are each a drift.


def _read(record: SiteRecord) -> SiteRead:
    from knobregistry.registry.site_reads import SiteRead

    return SiteRead(
        path=record.path,
        function=record.function,
        default=record.default,
        default_on=record.default_on,
        switch=record.switch,
        off_value=record.off_value if record.switch else None,
    )


def recorded_sites_drift(
    where: Where, knob: Knob, entry: KnobEntry, records: tuple[SiteRecord, ...]
) -> list[Diagnostic]:
    """KNB003 when the sites of ``knob`` no longer read it as ``records`` (its `sites:`) say;
    nothing when every site reads it as recorded and every record is still read."""
    from knobregistry.registry.site_reads import site_read, site_reads, sites_yaml

    recorded = {_read(r) for r in records}
    found = set(site_reads(knob))
    new = sorted(found - recorded, key=lambda r: r.sort_key)
    gone = sorted(recorded - found, key=lambda r: r.sort_key)
    if not new and not gone:
        return []
    site = next((s for s in knob.sites if site_read(s) in new), knob.sites[0])
    registry = where.registry_file
    line, _ = where.registry_line("knobs", knob.name, "sites")
    changes = [f"read at {r.describe(where.show(r.path))}" for r in new]
    changes += [f"no longer read at {r.describe(where.show(r.path))}" for r in gone]
    message = (
        f"{knob.name} is not read as {registry}:{line} records under `sites`: {'; '.join(changes)}."
    )
    fix = "\n".join(
        [
            f"If the change is intended (code you do not own was upgraded), record the sites "
            f"as they read it now, in {registry} under knobs.{knob.name}:",
            *(f"  {text}" for text in sites_yaml(knob)),
            "and review its triage; otherwise restore the read in the code.",
        ]
    )
    return [
        KNB003.diagnostic(
            where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
        )
    ]
