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
from dataclasses import dataclass, field, replace

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
    passed = _passes(settled, uses)
    return [passed.get(at, site) for at, site in enumerate(settled)]


def _presence(site: Site, at: int, uses: Uses) -> Site:
    if site.gate.kind is not GateKind.PRESENCE:
        return site
    name = site.name
    if name in uses.used or name in uses.assigned or name.startswith("_") or at in uses.guards:
        return replace(site, gate=VALUE_GATE)
    return site


@dataclass(slots=True)
class _Later:
    """What the sites of one variable after a position do (a default's own excluded),
    gathered from the end of the script back: the first of each kind is the one the walk
    met first."""

    tests: dict[int, Site] = field(default_factory=dict)  # switches judged by their words
    states: set[tuple[GateKind, bool | None]] = field(default_factory=set)
    off: set[str] | None = None  # the off values every test shares
    flag: tuple[int, Site] | None = None  # passed as a flag
    used: bool = False  # used as a value

    def add(self, at: int, site: Site, uses: Uses) -> None:
        gate = site.gate
        if gate.kind in _SWITCHES and by_convention(site):
            self.tests[at] = site
            self.states.add((gate.kind, gate.default_on))
            shared = set(gate.off_values)
            self.off = shared if self.off is None else self.off & shared
        flagged = site.target is not None and site.target.startswith("-")
        if flagged and (self.flag is None or at < self.flag[0]):
            self.flag = (at, site)
        self.used = self.used or (at not in uses.quiet and site.target is None)

    def agreed(self) -> Gate:
        """The gate of the tests, when they agree."""
        first = self.tests[min(self.tests)].gate
        if len(self.states) == 1 and (self.off or not first.off_values):
            return first
        return unknown_gate("the tests of it that follow in the script disagree")


def _passes(sites: Sequence[Site], uses: Uses) -> dict[int, Site]:
    """Each default assigned to the variable itself, judged by what follows it: the sites
    are taken from the last position back, so that each default sees the others once."""
    order = sorted(range(len(sites)), key=lambda at: (sites[at].line, sites[at].column))
    later: dict[str, _Later] = {}
    judged: dict[int, Site] = {}
    end = len(order)
    while end:
        here = (sites[order[end - 1]].line, sites[order[end - 1]].column)
        start = end
        while start and (sites[order[start - 1]].line, sites[order[start - 1]].column) == here:
            start -= 1
        group = order[start:end]  # the sites at one position: none of them is after another
        for at in group:
            site = sites[at]
            if at in uses.passes and site.gate.kind is GateKind.VALUE:
                judged[at] = _passed(site, at, later.get(site.name, _Later()), uses)
        for at in group:
            if at not in uses.passes:
                later.setdefault(sites[at].name, _Later()).add(at, sites[at], uses)
        end = start
    return judged


def _passed(site: Site, at: int, later: _Later, uses: Uses) -> Site:
    """A default assigned to the variable itself, judged by what follows it."""
    if later.tests:
        return replace(site, gate=later.agreed())
    if later.flag is not None:
        flag = later.flag[1]
        return replace(site, target=flag.target, gate=flag.gate)
    if later.used:
        return site  # used as a value
    if at in uses.built:
        return replace(
            site,
            gate=unknown_gate(
                f"its default ({site.default_computed or 'not a constant'}) is computed when "
                "the script runs, and the script only exports it for the programs it starts"
            ),
        )
    if on_off_default(site.default) is None:
        return site
    return replace(site, gate=judge(site.name, site.default, None, {}, None))
