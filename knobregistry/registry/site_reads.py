"""How each site reads a knob whose sites disagree: the `sites:` of its registry entry.

In code you do not own, sites of one knob may fall back to different defaults, or need
different values to turn off. `knobs init` records each site's read instead of asking for
the code to change, and `knobs check` holds the code to that record.
"""

from __future__ import annotations

from dataclasses import dataclass

from knobregistry.registry.feature import SWITCHES, Off, is_launch_fact, off_state
from knobregistry.registry.yaml_format import quoted, yaml_bool, yaml_string
from scanner import Knob, Site


@dataclass(frozen=True, slots=True)
class SiteRead:
    """One way a site reads a knob: where (file and scope) and its default and gate."""

    path: str
    function: str
    default: str | None
    default_on: bool | None
    switch: bool  # a switch states its off value (None: only unsetting turns it off)
    off_value: str | None

    @property
    def sort_key(self) -> tuple[str, str, str, int, bool, str]:
        """File, scope, then the read (None first wherever a value may be None)."""
        state = {None: 0, False: 1, True: 2}
        default = "" if self.default is None else "\x01" + self.default
        off = "" if self.off_value is None else "\x01" + self.off_value
        return (self.path, self.function, default, state[self.default_on], self.switch, off)

    def yaml(self) -> str:
        """One flow mapping, as an item of `sites:`."""
        fields = [
            f"path: {yaml_string(self.path)}",
            f"function: {yaml_string(self.function)}",
            f"default: {'null' if self.default is None else yaml_string(self.default)}",
            f"default_on: {yaml_bool(self.default_on)}",
        ]
        if self.switch:
            off = "null" if self.off_value is None else yaml_string(self.off_value)
            fields.append(f"off_value: {off}")
        return "{" + ", ".join(fields) + "}"

    def describe(self, path: str) -> str:
        """`pkg/a.py (in load): default "1", on by default, "0" turns it off`, with this
        read's file shown as ``path``."""
        state = {True: "on by default", False: "off by default", None: "not a switch"}
        default = "no default" if self.default is None else f"default {quoted(self.default)}"
        parts = [default, state[self.default_on]]
        if self.switch:
            parts.append(
                "only unsetting turns it off"
                if self.off_value is None
                else f"{quoted(self.off_value)} turns it off"
            )
        return f"{path} (in {self.function}): {', '.join(parts)}"


def site_read(site: Site) -> SiteRead:
    """How ``site`` reads its knob."""
    switch = site.gate.kind in SWITCHES
    return SiteRead(
        path=site.path,
        function=site.function,
        default=site.default,
        default_on=site.default_on,
        switch=switch,
        off_value=site.gate.off_value if switch else None,
    )


def site_reads(knob: Knob) -> tuple[SiteRead, ...]:
    """Each distinct way the sites of ``knob`` read it, sorted; two sites of one scope that
    read it alike are one."""
    return tuple(sorted({site_read(s) for s in knob.sites}, key=lambda r: r.sort_key))


def sites_disagree(knob: Knob) -> bool:
    """Whether the sites of ``knob`` disagree (a conflict of defaults, or no single value
    that turns every site off), so that its entry records them; never for a launch fact."""
    if is_launch_fact(knob):
        return False
    if knob.conflict or off_state(knob) is Off.SPLIT:
        return True
    # The same default read two ways (`== "DEBUG"` here, `in ("DEBUG", "INFO")` there):
    # on at one switch, off at another.
    states = {s.default_on for s in knob.sites if s.gate.kind in SWITCHES}
    return states >= {True, False}


def sites_yaml(knob: Knob) -> list[str]:
    """The `sites:` field of the entry of ``knob``, unindented, one string per line."""
    return ["sites:", *(f"  - {read.yaml()}" for read in site_reads(knob))]
