"""A knob whose entry records how each site reads it (`sites:`): the code must read it so.

The record accepts sites that disagree in code the project does not own; it is not a
waiver. A site that changes its default, off value or scope, a site that is gone, and a
new site that reads the knob another way are each a drift (KNB003).
"""

from __future__ import annotations

from knobregistry.check.codes import rule
from knobregistry.check.diagnostics import Diagnostic
from knobregistry.check.where import Where
from knobregistry.registry import KnobEntry, SiteRecord
from knobregistry.registry.site_reads import SiteRead, site_read, site_reads, sites_yaml
from scanner import Knob


def _read(record: SiteRecord) -> SiteRead:
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
        rule("KNB003").diagnostic(
            where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
        )
    ]
