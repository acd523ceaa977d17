"""Verdicts a script's later statements decide: what it does with a variable after the
read that is being judged.

- A presence test (``[[ -n $X ]]``) is no switch when the script also uses the value (a
  path it reads, an argument it passes), sets the variable itself after the test (a
  default, an include guard), only stops or warns when it is unset (a requirement), or
  the name is internal (``__X_SOURCED``).
- A default the script exports or assigns (``export X=${X:-1}``) is judged by what the
  script does with X afterwards: the on/off tests that follow it, the flag it is passed
  as, the value it is used as; when it does nothing but export it (or build another
  string from it), by its default and its name (config_verdict), for the programs the
  script starts decide; a default built from other variables is unknown.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from scanner.interpret.knobs import by_convention
from scanner.launcher.config_verdict import judge, on_off_default
from scanner.model import VALUE_GATE, Gate, GateKind, Site, unknown_gate

_SWITCHES = (GateKind.BOOLEAN, GateKind.PRESENCE)


@dataclass(frozen=True, slots=True)
class Uses:
    """What the walk of a script learnt about the reads it made, by index into its sites."""

    used: Collection[str]  # names read as a value, not only shown
    assigned: Collection[str]  # names the script sets itself after reading them
    passes: Collection[int]  # sites that are a default assigned to the variable itself
    built: Collection[int]  # passes whose default is built from other variables
    quiet: Collection[int]  # sites read in the arguments of echo, printf or a log function
    guards: Collection[int]  # sites read in a test whose branch only stops or prints


def settle(sites: Sequence[Site], uses: Uses) -> list[Site]:
    """The sites with the verdicts that the rest of the script decides."""
    settled = [_presence(site, at, uses) for at, site in enumerate(sites)]
    return [
        _passed(settled, at, uses)
        if at in uses.passes and site.gate.kind is GateKind.VALUE
        else site
        for at, site in enumerate(settled)
    ]


def _presence(site: Site, at: int, uses: Uses) -> Site:
    if site.gate.kind is not GateKind.PRESENCE:
        return site
    name = site.name
    if name in uses.used or name in uses.assigned or name.startswith("_") or at in uses.guards:
        return replace(site, gate=VALUE_GATE)
    return site


def _passed(sites: Sequence[Site], at: int, uses: Uses) -> Site:
    """A default assigned to the variable itself, judged by what follows it."""
    site = sites[at]
    here = (site.line, site.column)
    later = {
        index: s
        for index, s in enumerate(sites)
        if (s.line, s.column) > here and s.name == site.name and index not in uses.passes
    }
    tests = [s for s in later.values() if s.gate.kind in _SWITCHES and by_convention(s)]
    if tests:
        return replace(site, gate=_agreed(tests))
    flags = [s for s in later.values() if s.target is not None and s.target.startswith("-")]
    if flags:
        return replace(site, target=flags[0].target, gate=flags[0].gate)
    if any(i not in uses.quiet and s.target is None for i, s in later.items()):
        return site  # used as a value
    if at in uses.built:
        return replace(
            site,
            gate=unknown_gate(
                "its default is built from other variables, and the script only exports it "
                "for the programs it starts"
            ),
        )
    if on_off_default(site.default) is None:
        return site
    return replace(site, gate=judge(site.name, site.default, None, {}, None))


def _agreed(tests: Sequence[Site]) -> Gate:
    """The gate of the tests that follow a default, when they agree."""
    first = tests[0].gate
    states = {(t.gate.kind, t.gate.default_on) for t in tests}
    off = set(first.off_values).intersection(*(t.gate.off_values for t in tests[1:]))
    if len(states) == 1 and (off or not first.off_values):
        return first
    return unknown_gate("the tests of it that follow in the script disagree")
