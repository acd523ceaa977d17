"""The stable codes of `knobs check`: one Rule per code, shared by reconcile, reporters and docs.

A code never changes meaning. A retired or reserved code stays in this table
(``reserved=True``) so that it is never reused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from knobregistry.diagnostics import Diagnostic, Severity

DOCS_PAGE = "docs/checks.md"


class RuleInfo(Protocol):
    """What a reporter needs of any check's rule (these, and the profile and docs checks)."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def help(self) -> str: ...
    @property
    def severity(self) -> Severity: ...


@dataclass(frozen=True, slots=True)
class Rule:
    """One check: its code, a short CamelCase name, its severity and what it means."""

    code: str
    name: str
    title: str  # one line, for tables and SARIF's shortDescription
    description: str  # a paragraph, for SARIF's fullDescription and the docs
    help: str  # what to do about it
    severity: Severity = Severity.ERROR
    reserved: bool = False  # documented, never reported (for example: caught at load time)

    @property
    def anchor(self) -> str:
        """The heading anchor of this rule in docs/checks.md."""
        return f"{self.code.lower()}-{self.name.lower()}"

    def diagnostic(
        self,
        path: str,
        line: int,
        column: int,
        message: str,
        *,
        fix: str | None = None,
        knob: str | None = None,
    ) -> Diagnostic:
        """A finding of this rule, with its code and severity."""
        return Diagnostic(self.code, path, line, column, message, fix, knob, self.severity)


RULES: tuple[Rule, ...] = (
    Rule(
        code="KNB001",
        name="UnregisteredKnob",
        title="A knob the code reads is not registered.",
        description=(
            "The scan found a knob that the registry's policy requires to be registered "
            "(every knob under policy `all`; under policy `default-on`, knobs whose feature "
            "is on by default: on by default, or a `disable` knob off by default), and "
            "neither `knobs` nor `external` in the registry names it. Reported at the knob's "
            "first site."
        ),
        help=(
            "Add the YAML entry that the fix shows under `knobs:` in the registry (it is "
            "prefilled from the scan and starts `untriaged`), then fill in what it gates "
            "and triage it."
        ),
    ),
    Rule(
        code="KNB002",
        name="StaleKnob",
        title="A registered knob is read by no code in the scan scope.",
        description=(
            "The registry lists a knob under `knobs`, but no file in the scan scope reads "
            "it any more, or the scope's `match` patterns do not select it. Reported at the "
            "knob's entry in the registry. Not checked when paths are given on the command "
            "line, since the rest of the scope was not scanned."
        ),
        help=(
            "Remove the entry if the gate is gone; widen `scan.paths` if the code moved; "
            "move it under `external` if only a library reads it."
        ),
    ),
    Rule(
        code="KNB003",
        name="DefaultDrift",
        title="The code's default differs from the registry's.",
        description=(
            "A site falls back to a different value than the registered `default`, or its "
            "gate is on (or off) by default where the registered `default_on` says "
            "otherwise. The knob's triage was made for the registered default, so a change "
            "needs a look. Reported at the site, naming the registry's line. Not reported "
            "for a knob with conflicting sites (KNB004): fix that first."
        ),
        help=(
            "If the change is intended, update `default` / `default_on` in the registry as "
            "the fix shows and review the triage; otherwise restore the default in the code."
        ),
    ),
    Rule(
        code="KNB004",
        name="ConflictingSites",
        title="A knob is read with conflicting defaults.",
        description=(
            "Sites of one knob disagree: one is on by default and another off, they fall "
            "back to different values, or no single value turns every site off. No profile "
            "can then switch the knob off everywhere with one value. Reported for knobs that "
            "are registered or that the policy requires, at the first site that disagrees "
            "with the registry (or the first site); never for a launch fact."
        ),
        help=(
            "Make every site read the variable the same way: one helper function, or one "
            "module constant for the default."
        ),
    ),
    Rule(
        code="KNB005",
        name="ExemptWithoutReason",
        title="An exempt knob has no reason (a registry error).",
        description=(
            "A knob with `triage: exempt` must say why in `reason`. The registry's schema "
            "requires it, so the registry fails to load (exit 2) with the file, line and "
            "key; `knobs check` never reports this code itself. It is reserved so that it "
            "keeps this meaning."
        ),
        help="Add `reason:` to the entry, or triage the knob.",
        reserved=True,
    ),
    Rule(
        code="KNB006",
        name="DynamicRead",
        title="An environment read whose variable name cannot be resolved.",
        description=(
            "Under policy `all`, a read in the scope whose name the scanner cannot resolve "
            "(an f-string over data it cannot know, a parameter no call gives a literal) "
            "might be an unregistered knob; the message says why it cannot be resolved. It "
            "is a warning: it does not fail the check, because such a read can be neither "
            "registered nor proved harmless."
        ),
        help=(
            "Name the variable with a string literal or a module-level constant (or pass "
            "it to a wrapper function as a literal), so that the knob can be registered."
        ),
        severity=Severity.WARNING,
    ),
    Rule(
        code="KNB007",
        name="UnscannableFile",
        title="A file in the scope could not be scanned.",
        description=(
            "A file in the scope could not be read or parsed (a syntax error, not UTF-8, "
            "too large). Its knobs are unknown, so the check cannot vouch for it and fails."
        ),
        help=(
            "Fix the file, or add it to `scan.exclude` in the registry if it is not meant "
            "to be scanned."
        ),
    ),
    Rule(
        code="KNB008",
        name="UndecidedGate",
        title="A knob whose gate the scanner could not decide is not registered.",
        description=(
            "The scanner could not tell what the code does with a knob's value (it goes "
            "through a function it does not follow, for example), so nothing says whether "
            "the knob is on by default. It is never taken as off or as a value: under either "
            "policy it must be registered, after a person has read the code. Reported at its "
            "first undecided site, with the scanner's reason."
        ),
        help=(
            "Read the code around the site (`knobs explain KNOB`), then register the knob "
            "under `knobs:` with `default_on` as you found it and its triage."
        ),
    ),
)

_BY_CODE = {rule.code: rule for rule in RULES}


def rule(code: str) -> Rule:
    """The rule for ``code``; KeyError for an unknown code."""
    return _BY_CODE[code]
