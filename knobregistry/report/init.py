"""What `knobs init` says once it has written the starting registry: what it wrote, the
stack settings it proposed, the roles, and what is left to decide."""

from __future__ import annotations

from collections import Counter

from knobregistry._text.plural import counted
from knobregistry._text.printable import printable
from knobregistry.init.use_case import InitPlan
from knobregistry.project.stack_use import StackUse
from knobregistry.registry.feature import computed_off, undecided_gate
from knobregistry.registry.site_reads import sites_disagree
from scanner import Polarity, Role


def written_lines(plan: InitPlan) -> list[str]:
    """The files written (standard output)."""
    output = plan.request.output
    starter = plan.starter
    on = sum(1 for k in starter.knobs if k.default_on)
    lines = [
        f"Wrote {output.as_posix()}: {counted(len(starter.knobs), 'knob')} "
        f"({on} on by default), every one untriaged."
    ]
    if plan.copy is not None and plan.writes_schema:
        lines.append(
            f"Wrote {plan.copy.as_posix()}: the registry's JSON schema, which the first line of "
            f"{output.name} points editors at; commit it beside it."
        )
    return lines


def summary_lines(plan: InitPlan) -> list[str]:
    """The stack settings proposed, the roles, and what is left to decide (standard output)."""
    starter = plan.starter
    result = plan.result
    lines = stack_lines(plan.use)
    if starter.mode_settings:
        names = ", ".join(m.name for m in starter.mode_settings)
        lines.append(
            f"Stack settings the project's own deterministic mode writes: {names}; role "
            "`stack`, set by the bitwise profile to the value the mode writes."
        )
    roles = Counter(k.role for k in starter.knobs)
    if starter.knobs:
        shown_roles = ", ".join(f"{roles[r]} {r.value}" for r in Role if roles[r])
        lines.append(
            f"Roles proposed from the code: {shown_roles}; confirm each by writing `role: ROLE`."
        )
    undecided = [k.name for k in starter.knobs if undecided_gate(k) is not None]
    computed = [k for k in starter.knobs if computed_off(k) is not None]
    if undecided:
        written = "`off_value`"
        if any(k.polarity is Polarity.DISABLE for k in computed):
            written = "`off_value` (a disable knob's `on_value`)"
        but = (
            f", but a `set: off` rule writes the {written} of the {len(computed)} whose state "
            "unset only the run computes"
            if computed
            else ""
        )
        lines.append(
            f"Undecided: {counted(len(undecided), 'knob')} whose gate the scan could not decide "
            f"(`undecided:` in the registry); no profile sets them{but}, and `knobs check` lists "
            "them."
        )
    for knob in starter.knobs:
        if sites_disagree(knob):
            reason = knob.conflict_reason or "its sites read it differently"
            lines.append(
                f"Conflict in {knob.name}: {reason}; how each site reads it is recorded under "
                "`sites`, which `knobs check` holds the code to."
            )
    unread = [e for e in result.errors if not e.template]
    if result.dynamic or unread:
        lines.append(
            f"Not registered: {counted(len(result.dynamic), 'dynamic read')} and "
            f"{counted(len(unread), 'file')} that could not be scanned "
            "(`knobs check` lists them)."
        )
    if starter.templates:
        held = ", ".join(printable(e.path) for e in starter.templates)
        lines.append(
            f"Left out of the scan: {counted(len(starter.templates), 'launcher')} with "
            f"placeholders to fill in, which bash cannot run as they stand: {held} "
            "(`scan.exclude` in the registry says why; remove one there once it is filled in)."
        )
    lines.append("Next: say what each knob gates, triage it, and run `knobs check`.")
    if starter.skipped:
        names = ", ".join(repr(name) for name in starter.skipped)
        lines.append(
            f"Excluded {counted(len(starter.skipped), 'name')} that no registry can hold "
            f"(letters, digits and '_' only), which `knobs check` leaves out too: {names}."
        )
    return lines


def stack_lines(use: StackUse) -> list[str]:
    """What init proposed from the catalogue, from which packages, on which platform."""
    lines: list[str] = []
    if not use.found and not use.launched:
        return lines
    if use.entries:
        libraries = ", ".join(dict.fromkeys(e.library for e in use.entries))
        unset = sorted({e.name for e in use.entries if e.must_stay_unset})
        they = "it" if len(unset) == 1 else "they"
        how = f" ({', '.join(unset)} unset: {they} must stay unset)" if unset else ""
        lines.append(
            f"Stack settings from the catalogue: {counted(len(use.entries), 'setting')} of "
            f"{libraries}, role `stack`, set by the bitwise profile{how}."
        )
    if use.launched:
        names = ", ".join(dict.fromkeys(e.name for e in use.launched))
        lines.append(
            f"Stack settings the project's launchers set: {names}; role `stack`, set by the "
            "bitwise profile to their deterministic values."
        )
    if use.own:
        names = ", ".join(dict.fromkeys(e.name for e in use.own))
        lines.append(
            f"Stack settings of one platform that the project's code reads as a switch on when "
            f"unset: {names}; role `stack`, set by the bitwise profile to the catalogue's value, "
            "which turns that switch off."
        )
    for entry in use.by_hand:
        lines.append(
            f"Not in the recipe: {entry.name} holds other settings as well, which a recipe line "
            f"would replace; add {entry.value_text} to it where your launcher sets it "
            f"({entry.library}: {entry.meaning}; source: {entry.source})."
        )
    if use.found:
        found = "; ".join(f"{name} ({how})" for name, how in use.found.items())
        lines.append(f"Libraries found: {found}.")
    if use.platform is not None:
        lines.append(f"Platform: {use.platform.value} ({use.platform_reason}).")
    else:
        lines.append(
            f"Platform: undecided ({use.platform_reason}); the settings of one platform "
            "(NCCL, cuBLAS, cuDNN, RCCL, rocBLAS, hipBLASLt, MIOpen, ...) were left out: "
            "pass --platform cuda|rocm|cpu."
        )
    return lines
