"""A knob's role from what its value switches between, with the chain of evidence.

For the variable unset (its default) and each other value the probes tried, the branches
that run under one and not the other are followed to their marks. A value that leaves
behind a kernel the default reaches (a Triton kernel, autotuning, a compiled path, ...),
where what runs instead does not always reach a kernel, turns a *kernel* path off: the
knob is a kernel choice, and that value is the one a bitwise recipe writes, whatever the
variable or the names around it are called. A value that runs code the default does not,
which makes the run deterministic, is the framework's *deterministic* mode. Where each
value reaches a kernel of its own, the code does not say which is safe: unknown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scanner.conventions import EMPTY, OFF_WORDS, ON_WORDS
from scanner.languages import Language
from scanner.model import GateKind, Knob, Role, Site
from scanner.reach.branches import Branch, Carriers, branches, carried_names
from scanner.reach.calls import Found, Reach, Step
from scanner.reach.config import config_branches, config_key
from scanner.reach.marks import KERNEL_MARKS, Mark, MarkKind
from scanner.reach.modules import Tree
from scanner.reach.trainer_keys import trainer_key

SWITCH_WORDS = frozenset({*ON_WORDS, *OFF_WORDS, EMPTY})


@dataclass(frozen=True, slots=True)
class Evidence:
    """A role the code shows, why, and the value that does it (the value that leads away
    from the kernel for a kernel choice, the value that turns a deterministic mode on)."""

    role: Role
    reason: str
    value: str | None = None
    default_reaches: bool = False  # the kernel (or the mode) is what runs when unset


class CodeReach:
    """The tree and what its code reaches, shared by every knob of one scan."""

    def __init__(self, tree: Tree, knobs: Iterable[Knob]) -> None:
        self.tree = tree
        self.reach = Reach(tree)
        self.carriers = Carriers(tree)
        self.carriers.want(
            carried
            for knob in knobs
            for site in knob.sites
            if site.decisions and (module := tree.module_name_at(site.path)) is not None
            for carried in carried_names(site, module)
        )
        self.carriers.want(
            ("", key)
            for knob in knobs
            for site in knob.sites
            if site.language is not Language.PYTHON and (key := config_key(site)) is not None
        )
        # By the branch's test and side: the tests live as long as the tree's modules.
        self._found: dict[tuple[str, int, bool], Found] = {}
        self._config: dict[tuple[str | None, str | None, bool], list[Branch]] = {}

    def found(self, branch: Branch) -> Found:
        key = (branch.module.rel, id(branch.test), branch.holds)
        known = self._found.get(key)
        if known is None:
            code = branch.code
            if isinstance(code, tuple):
                known = self.reach.of_statements(branch.module, code, branch.owner)
            else:
                known = self.reach.of_expression(branch.module, code, branch.owner)
            self._found[key] = known
        return known

    def _config_branches(self, site: Site) -> list[Branch]:
        """The branches a launcher site's config key decides: the same for every site that
        hands the same default to the same key."""
        key = (config_key(site), site.default, (site.target or "").startswith("-"))
        if key[0] is None:
            return []
        known = self._config.get(key)
        if known is None:
            known = list(config_branches(site, self.tree, self.carriers))
            self._config[key] = known
        return known

    def branches_of(self, knob: Knob) -> list[Branch]:
        """Every branch the knob's value decides, from its Python sites and the config keys
        its launcher sites set."""
        return [
            b
            for site in knob.sites
            for b in (
                branches(site, self.tree, self.carriers)
                if site.language is Language.PYTHON
                else self._config_branches(site)
            )
        ]

    def evidence(self, knob: Knob) -> Evidence | None:
        """What the knob's branches show about its role; None when they show nothing."""
        found = self.branches_of(knob)
        judged = _Judged(self, knob, found).evidence() if found else None
        return judged if judged is not None else _documented(knob)


class _Judged:
    def __init__(self, code: CodeReach, knob: Knob, found: list[Branch]) -> None:
        self.code = code
        self.knob = knob
        self.branches = found

    def evidence(self) -> Evidence | None:
        values = self._values()
        for value in values:
            kernel = self._turns_off(value)
            if kernel is not None:
                return kernel
        for value in values:
            mode = self._turns_on_mode(value)
            if mode is not None:
                return mode
        for value in values:
            kernel = self._turns_on(value)
            if kernel is not None:
                return kernel
        for value in values:
            both = self._both_kernels(value)
            if both is not None:
                return both
        return None

    def _values(self) -> list[str]:
        """The set values to weigh against the unset one: the knob's off and on values
        first, then every other value the probes tried. A value knob (a size, a path, a
        backend name) is weighed only with the strings its code compares it with: a
        choice, never a switch."""
        seen = [self.knob.off_value, self.knob.on_value]
        for branch in self.branches:
            seen.extend(branch.taken)
        for branch in self.branches:
            seen.extend(branch.strings())
        values = [v for v in dict.fromkeys(seen) if v is not None]
        if self.knob.kind is GateKind.VALUE:
            values = [v for v in values if v.lower() not in SWITCH_WORDS]
        return values

    def _only(self, first: str | None, second: str | None) -> list[Branch]:
        """The branches that run under ``first`` and not ``second`` for some choice of the
        rest of their tests."""
        found = []
        for branch in self.branches:
            if branch.check:
                continue
            under, other = branch.runs(first), branch.runs(second)
            if (
                under is not None
                and other is not None
                and any(a and not b for a, b in zip(under, other, strict=True))
            ):
                found.append(branch)
        return found

    def _marks(
        self, chosen: Sequence[Branch], *, always: bool = False
    ) -> dict[Mark, tuple[Branch, tuple[Step, ...]]]:
        marks: dict[Mark, tuple[Branch, tuple[Step, ...]]] = {}
        for branch in chosen:
            found = self.code.found(branch)
            for mark, steps in found.marks.items():
                if always and mark not in found.always:
                    continue
                if mark not in marks or len(steps) < len(marks[mark][1]):
                    marks[mark] = (branch, steps)
        return marks

    def _turns_off(self, value: str) -> Evidence | None:
        lost = _kernel(self._marks(self._only(None, value)))
        instead = self._only(value, None)
        left = {m: w for m, w in lost.items() if m not in _kernel(self._marks(instead))}
        if not left or _kernel(self._marks(instead, always=True)):
            return None
        mark, (branch, steps) = _first(left)
        return Evidence(
            Role.KERNEL,
            f"unset, it runs {branch.described()}, which reaches {_chain(steps, mark)}; "
            f"{self.knob.name}={value!r} leaves that branch, and what runs instead reaches "
            "no such kernel",
            value=value,
            default_reaches=True,
        )

    def _turns_on(self, value: str) -> Evidence | None:
        gained = _kernel(self._marks(self._only(value, None)))
        instead = self._only(None, value)
        left = {m: w for m, w in gained.items() if m not in _kernel(self._marks(instead))}
        if not left or _kernel(self._marks(instead, always=True)):
            return None
        mark, (branch, steps) = _first(left)
        return Evidence(
            Role.KERNEL,
            f"{self.knob.name}={value!r} runs {branch.described()}, which reaches "
            f"{_chain(steps, mark)}; unset, it does not",
            value=value,
        )

    def _turns_on_mode(self, value: str) -> Evidence | None:
        gained = _of(self._marks(self._only(value, None)), MarkKind.DETERMINISM)
        if not gained:
            return None
        mark, (branch, steps) = _first(gained)
        return Evidence(
            Role.DETERMINISM,
            f"{self.knob.name}={value!r} runs {branch.described()}, which reaches "
            f"{_chain(steps, mark)}: a deterministic mode",
            value=value,
        )

    def _both_kernels(self, value: str) -> Evidence | None:
        lost = _kernel(self._marks(self._only(None, value), always=True))
        gained = _kernel(self._marks(self._only(value, None), always=True))
        if not lost or not gained:
            return None
        first, (_, first_steps) = _first(lost)
        second, (_, second_steps) = _first(gained)
        return Evidence(
            Role.UNKNOWN,
            f"each value reaches a kernel of its own: unset, {_chain(first_steps, first)}; "
            f"{self.knob.name}={value!r}, {_chain(second_steps, second)}",
        )


def _documented(knob: Knob) -> Evidence | None:
    """What the trainer documents of the config key a launcher site of the knob sets."""
    if knob.kind not in (GateKind.BOOLEAN, GateKind.PRESENCE):
        return None
    for site in knob.sites:
        if site.language is Language.PYTHON:
            continue
        known = trainer_key(config_key(site))
        if known is None:
            continue
        kernel = known.role is Role.KERNEL
        value = knob.off_value if kernel else knob.on_value
        if value is None:
            continue
        return Evidence(
            known.role,
            f"it sets the config key {known.key} ({site.path}:{site.line}), which {known.source} "
            f"documents as {known.meaning}",
            value=value,
            default_reaches=kernel and knob.default_on is True,
        )
    return None


def _kernel(
    marks: dict[Mark, tuple[Branch, tuple[Step, ...]]],
) -> dict[Mark, tuple[Branch, tuple[Step, ...]]]:
    return {m: w for m, w in marks.items() if m.kind in KERNEL_MARKS}


def _of(
    marks: dict[Mark, tuple[Branch, tuple[Step, ...]]], kind: MarkKind
) -> dict[Mark, tuple[Branch, tuple[Step, ...]]]:
    return {m: w for m, w in marks.items() if m.kind is kind}


def _first(
    marks: dict[Mark, tuple[Branch, tuple[Step, ...]]],
) -> tuple[Mark, tuple[Branch, tuple[Step, ...]]]:
    """The mark shown as the evidence: the one fewest calls away, then by place."""
    return min(
        marks.items(), key=lambda item: (len(item[1][1]), item[0].path, item[0].line, item[0].what)
    )


def _chain(steps: tuple[Step, ...], mark: Mark) -> str:
    return " -> ".join([*(s.shown() for s in steps), mark.shown()])
