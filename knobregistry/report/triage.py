"""The results of a triage: a table and a summary for people, one JSON document for machines."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from knobregistry._text.plural import counted
from knobregistry.registry import Sweep, Verdict
from knobregistry.triage.cost import KnobCost, knob_costs
from knobregistry.triage.host import Host
from knobregistry.triage.model import Outcome, Search, Status, TriageResult, status_of
from knobregistry.triage.record import Recorded
from knobregistry.triage.yaml_edit import RecordEdit

_STYLE = {
    Verdict.REPRODUCIBLE: "green",
    Verdict.BREAKS_BITWISE: "bold red",
    Verdict.ERROR: "yellow",
}


def print_table(result: TriageResult, console: Console, recorded: Recorded | None) -> None:
    """The header, one row per setting run, each difference and error, and a summary."""
    console.print(f"knobs triage: {escape(shlex.join(result.command))}")
    profile = result.profile or "none"
    console.print(
        f"compare: {escape(result.compare)}; runs per setting: {result.runs}; "
        f"profile: {escape(profile)}; candidates: {len(result.candidates)}"
    )
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("sweep", no_wrap=True)
    table.add_column("knobs on", overflow="fold")
    table.add_column("verdict", no_wrap=True)
    table.add_column("runs", justify="right", no_wrap=True)
    costs = knob_costs(result)
    if result.cost is not None:
        table.add_column("off/on", no_wrap=True)
    for outcome in result.outcomes:
        verdict = outcome.verdict
        row = [
            outcome.setting.sweep.value,
            escape(" + ".join(outcome.setting.knobs) or "-"),
            f"[{_STYLE[verdict]}]{verdict.value}[/]",
            str(outcome.runs),
        ]
        if result.cost is not None:
            row.append(_cost_cell(outcome, costs))
        table.add_row(*row)
    with console.capture() as captured:
        console.print(table)
    console.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))
    details = [o for o in result.outcomes if o.detail]
    if details:
        console.print()
    for outcome in details:
        console.print(f"{escape(outcome.setting.label)}: {escape(outcome.detail or '')}")
    console.print()
    for line in cost_lines(result):
        console.print(escape(line))
    for line in summary(result):
        console.print(escape(line))
    if recorded is not None:
        console.print(f"\nRecorded in {escape(recorded.path)}:")
        for edit in recorded.changes:
            console.print(f"  {escape(_edit_line(edit))}")
        if recorded.profile is not None and result.search is not None:
            console.print(
                f"  profile {escape(recorded.profile)}: {escape(result.profile or 'no profile')} "
                f"with {escape(' + '.join(result.search.verified))} back on, verified together"
            )


def _cost_cell(outcome: Outcome, costs: dict[str, KnobCost | None]) -> str:
    if outcome.setting.sweep is not Sweep.ALONE:
        return ""
    cost = costs.get(outcome.setting.knobs[0])
    if cost is None:
        return "-"
    return f"{cost.off_over_on:.2f}" + (" (noise)" if cost.within_noise else "")


def cost_lines(result: TriageResult) -> list[str]:
    """What turning each knob off costs, one line per knob, then a blank line."""
    metric = result.cost
    costs = knob_costs(result)
    if metric is None or not costs:
        return []
    better = "higher" if metric.higher_is_better else "lower"
    lines = [
        f"Cost of turning each knob off ({metric}, {better} is better; the median of "
        f"{result.runs} runs per setting; off/on > 1: slower off):"
    ]
    for name, cost in costs.items():
        if cost is None:
            lines.append(f"  {name}: not measured (a run failed or gave no number)")
        elif cost.within_noise:
            lines.append(
                f"  {name}: within noise ({cost.off_over_on:.2f}x; spread {cost.spread:.1%})"
            )
        else:
            way = "slower" if cost.off_over_on > 1 else "faster"
            lines.append(
                f"  {name}: {cost.off_over_on:.2f}x, {way} off (on {cost.on:.4g}, "
                f"off {cost.off:.4g}; spread {cost.spread:.1%})"
            )
    return [*lines, ""]


def summary(result: TriageResult) -> list[str]:
    """What the triage found, in a few sentences, and what it cost in runs."""
    status = status_of(result)
    if status is Status.BASELINE_DIFFERS:
        return [
            "The baseline is not reproducible: its own runs differ, so something outside the "
            "candidate knobs is nondeterministic (a seed, the data order, a library's kernel, "
            "a knob the profile leaves on). Triage stopped; no knob was judged.",
            _runs_line(result),
        ]
    if status is Status.BASELINE_ERROR:
        return [
            "The baseline failed, so no knob was judged: make the command run with every "
            "candidate off first.",
            _runs_line(result),
        ]
    lines = []
    alone = {v: [o.setting.label for o in result.alone if o.verdict is v] for v in Verdict}
    if alone[Verdict.BREAKS_BITWISE]:
        lines.append(
            f"Breaks bitwise reproducibility alone: {_names(alone[Verdict.BREAKS_BITWISE])}."
        )
    if alone[Verdict.REPRODUCIBLE]:
        lines.append(f"Reproducible alone: {_names(alone[Verdict.REPRODUCIBLE])}.")
    if alone[Verdict.ERROR]:
        lines.append(f"Could not be judged (a run failed): {_names(alone[Verdict.ERROR])}.")
    if result.pairs is not None:
        lines.append(_pairs_line(result.pairs))
    if result.bisection is not None:
        lines.extend(_bisection_lines(result))
    if result.search is not None:
        lines.extend(search_lines(result, result.search))
    lines.append(_runs_line(result))
    return lines


def search_lines(result: TriageResult, search: Search) -> list[str]:
    """Each knob the search tried, what became of it, the combination verified and the runs."""
    metric = f"by {result.cost}" if result.cost is not None else "not measured: by name"
    slower = [f"{k} ({ratio:.2f}x)" for k, ratio in search.slower]
    slower_line = f"Left off, as they are slower on than off: {_names(slower)}."
    if not search.order and not slower:
        return ["Search: no knob was reproducible alone; nothing can be turned back on."]
    if not search.order:
        return [
            "Search: every knob reproducible alone is slower on; none is turned back on.",
            slower_line,
        ]
    lines = [f"Search for the fastest bitwise combination (benefit: times faster on, {metric}):"]
    benefits = dict(search.order)
    for number, step in enumerate(search.steps, 1):
        benefit = benefits[step.knob]
        shown = f"{benefit:.2f}x" if benefit is not None else "not measured"
        line = f"  {number}. {step.knob} ({shown}): {'kept' if step.kept else 'left off'}; "
        line += _together(step.outcome)
        if step.culprit:
            line += f"; the knobs that break together: {' + '.join(step.culprit)}"
        lines.append(line)
    verified = " + ".join(search.verified) or "none"
    lines.append(f"Verified as a whole: {verified}.")
    if search.never:
        lines.append(f"Never turned back on (they break or fail alone): {_names(search.never)}.")
    if slower:
        lines.append(slower_line)
    count = len(result.candidates)
    lines.append(
        f"The search spent {counted(len(search.tests), 'test')} ({search.runs} runs); every "
        f"combination of the {count} candidates takes {2**count} settings "
        f"({2**count * result.runs} runs)."
    )
    return lines


def _together(outcome: Outcome) -> str:
    """`A on alone: reproducible`, `A + C on together: not reproducible`."""
    knobs = outcome.setting.knobs
    verdict = {
        Verdict.REPRODUCIBLE: "reproducible",
        Verdict.BREAKS_BITWISE: "not reproducible",
        Verdict.ERROR: "could not be judged (a run failed)",
    }[outcome.verdict]
    return f"{' + '.join(knobs)} on {'alone' if len(knobs) == 1 else 'together'}: {verdict}"


def _pairs_line(pairs: Sequence[Outcome]) -> str:
    if not pairs:
        return "Pairs: fewer than two knobs were reproducible alone; nothing to combine."
    broken = [o.setting.label for o in pairs if o.verdict is Verdict.BREAKS_BITWISE]
    failed = sum(1 for o in pairs if o.verdict is Verdict.ERROR)
    text = f"Pairs: {len(pairs)} swept; "
    text += f"breaking together: {_names(broken)}" if broken else "none breaks reproducibility"
    return text + (f"; {failed} could not be judged." if failed else ".")


def _bisection_lines(result: TriageResult) -> list[str]:
    bisection = result.bisection
    assert bisection is not None
    start = bisection.start
    if start is None:
        return ["Bisect: fewer than two knobs were reproducible alone; nothing to combine."]
    count = len(bisection.knobs)
    every = f"all {count} knobs that were reproducible alone"
    if start.verdict is Verdict.REPRODUCIBLE:
        spent = (
            f"1 test, {start.runs} runs"
            if bisection.tests
            else f"as the {start.setting.sweep.value} sweep judged them"
        )
        return [f"Bisect: {every}, on together, are reproducible ({spent})."]
    if start.verdict is Verdict.ERROR:
        return [f"Bisect: {every}, on together, could not be judged (a run failed)."]
    pairs = count * (count - 1) // 2
    reused = (
        f" and took {counted(len(bisection.reused), 'setting')} the sweep had judged"
        if bisection.reused
        else ""
    )
    return [
        f"Bisect: {every}, on together, break reproducibility; a minimal set responsible: "
        f"{' + '.join(bisection.minimal)}.",
        f"Bisect spent {counted(len(bisection.tests), 'test')} ({bisection.runs} runs){reused}; "
        f"sweeping every pair of the {count} knobs takes {pairs} tests "
        f"({pairs * result.runs} runs).",
    ]


def _runs_line(result: TriageResult) -> str:
    parts = [
        f"{sweep.value} {result.runs_spent(sweep)}"
        for sweep in Sweep
        if any(o.setting.sweep is sweep for o in result.outcomes)
    ]
    return f"Runs of the command: {result.runs_spent()} ({', '.join(parts)})."


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)


def _edit_line(edit: RecordEdit) -> str:
    if edit.missing:
        return f"{edit.knob}: no longer in the registry; nothing recorded"
    status = f"{edit.before} -> {edit.after}" if edit.before != edit.after else edit.after
    counts = []
    if edit.added:
        counts.append(f"{counted(edit.added, 'record')} added")
    if edit.updated:
        counts.append(f"{counted(edit.updated, 'record')} updated")
    return f"{edit.knob}: {status}; {', '.join(counts) or 'no record'}"


def render_json(result: TriageResult, host: Host | None, recorded: Recorded | None) -> str:
    """The whole result as one JSON document (keys in a fixed order), with a final newline."""
    bisection = result.bisection
    document: dict[str, Any] = {
        "status": status_of(result).value,
        "command": list(result.command),
        "compare": result.compare,
        "runs": result.runs,
        "profile": result.profile,
        "candidates": list(result.candidates),
        "environment": dict(result.environment),
        "baseline": _outcome(result.baseline),
        "alone": [_outcome(o) for o in result.alone],
        "pairs": [_outcome(o) for o in result.pairs] if result.pairs is not None else None,
        "bisect": None
        if bisection is None
        else {
            "knobs": list(bisection.knobs),
            "minimal": list(bisection.minimal),
            "tests": [_outcome(o) for o in bisection.tests],
            "reused": [_outcome(o) for o in bisection.reused],
            "runs": bisection.runs,
        },
        "runs_spent": {
            "total": result.runs_spent(),
            **{sweep.value: result.runs_spent(sweep) for sweep in Sweep},
        },
        "cost": _cost_json(result),
        "search": _search_json(result.search),
        "host": None
        if host is None
        else {
            "name": host.name,
            "gpu": host.gpu,
            "gpus": host.gpus,
            "hosts": list(host.hosts) or [host.name],
            "versions": dict(host.versions),
            "versions_from": host.source,
        },
        "recorded": None
        if recorded is None
        else {
            "registry": recorded.path,
            "profile": recorded.profile,
            "knobs": [
                {
                    "name": e.knob,
                    "before": e.before,
                    "after": e.after,
                    "added": e.added,
                    "updated": e.updated,
                    "missing": e.missing,
                }
                for e in recorded.changes
            ],
        },
    }
    return json.dumps(document, indent=2) + "\n"


def _search_json(search: Search | None) -> dict[str, Any] | None:
    if search is None:
        return None
    return {
        "order": [
            {"knob": k, "benefit": round(b, 4) if b is not None else None} for k, b in search.order
        ],
        "never": list(search.never),
        "slower": [{"knob": k, "benefit": round(b, 4)} for k, b in search.slower],
        "steps": [
            {
                "knob": step.knob,
                "kept": step.kept,
                "combination": _outcome(step.outcome),
                "culprit": list(step.culprit),
            }
            for step in search.steps
        ],
        "tests": [_outcome(o) for o in search.tests],
        "runs": search.runs,
        "verified": list(search.verified),
    }


def _cost_json(result: TriageResult) -> dict[str, Any] | None:
    metric = result.cost
    if metric is None:
        return None
    knobs: dict[str, Any] = {}
    for name, cost in knob_costs(result).items():
        knobs[name] = (
            None
            if cost is None
            else {
                "on": cost.on,
                "off": cost.off,
                "off_over_on": round(cost.off_over_on, 4),
                "spread": round(cost.spread, 4),
                "within_noise": cost.within_noise,
                "runs": cost.runs,
            }
        )
    return {"metric": str(metric), "higher_is_better": metric.higher_is_better, "knobs": knobs}


def _outcome(outcome: Outcome) -> dict[str, Any]:
    return {
        "sweep": outcome.setting.sweep.value,
        "knobs": list(outcome.setting.knobs),
        "verdict": outcome.verdict.value,
        "runs": outcome.runs,
        "detail": outcome.detail,
    }
