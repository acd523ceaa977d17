"""KNB203 BaselineEntryGone: a finding the baseline accepts that the check no longer reports;
and the baseline applied to a check's result (the file's format: knobregistry.check.baseline).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from knobregistry._text.paths import shown
from knobregistry.check.baseline import Baseline, BaselineKey, baselinable, finding_key
from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import INVENTORY, example

if TYPE_CHECKING:
    from pathlib import Path

    from knobregistry.check.run import CheckResult


def _baseline(finding: str) -> str:
    return '{\n  "version": 1,\n  "findings": [' + finding + "]\n}\n"


_GONE = (
    '\n    {"code": "KNB001", "knob": "PRIMUS_NEW_TRITON", "path": "pkg/new.py", "count": 1}\n  '
)


# KNB203's section of docs/waivers.md, below its heading (the site renders it there).
KNB203_SECTION = """\
The baseline lists a finding the check no longer reports (or more of a key than
it now reports). An error, reported at the entry's line in the baseline file.
Fix: rewrite the baseline with `knobs check --baseline FILE --write-baseline FILE`.
"""

KNB203 = Rule(
    code="KNB203",
    name="BaselineEntryGone",
    title="The baseline lists a finding that is gone.",
    description=(
        "`knobs check --baseline FILE` hides the findings listed in FILE. A listed finding "
        "that the check no longer reports has been paid off, and the baseline must shrink, "
        "or it would hide the same finding if it came back. Not checked when paths on the "
        "command line narrow the scan."
    ),
    example=(
        "# knobs-baseline.json accepts KNB001 for PRIMUS_NEW_TRITON in pkg/model.py;\n"
        "# the knob has since been registered"
    ),
    examples=example(
        INVENTORY,
        invalid={"knobs-baseline.json": _baseline(_GONE)},
        valid={"knobs-baseline.json": _baseline("")},
        arguments=("--baseline", "knobs-baseline.json"),
    ),
    page="waivers.md",
    section=KNB203_SECTION,
    family=Family.BASELINE,
    help=(
        "Rewrite the baseline without it: knobs check --baseline FILE --write-baseline FILE "
        "(a baseline may always shrink)."
    ),
)


def apply_baseline(
    result: CheckResult, baseline: Baseline, *, path: Path, cwd: Path
) -> CheckResult:
    """``result`` without the findings ``baseline`` accepts, plus KNB203 for what is gone.

    ``path`` is the baseline file. Gone entries are not checked when the scan was
    narrowed (``result.stale_checked`` False): the rest of the scope was not looked at.
    """
    folder = path.absolute().parent
    groups: dict[BaselineKey, list[Diagnostic]] = {}
    kept: list[Diagnostic] = []
    for diagnostic in result.diagnostics:
        if baselinable(diagnostic):
            groups.setdefault(finding_key(diagnostic, cwd=cwd, folder=folder), []).append(
                diagnostic
            )
        else:
            kept.append(diagnostic)
    hidden = 0
    for key, found in groups.items():
        if len(found) <= baseline.counts.get(key, 0):
            hidden += len(found)
        else:
            kept.extend(found)
    if result.stale_checked:
        display = shown(path, cwd)
        for key, allowed in baseline.counts.items():
            now = len(groups.get(key, ()))
            if now < allowed:
                kept.append(_entry_gone(key, allowed, now, display, baseline, folder, cwd))
    return replace(
        result,
        diagnostics=tuple(sorted(kept, key=lambda d: d.sort_key)),
        rules=(*result.rules, KNB203),
        baseline=shown(path, cwd),
        baselined=hidden,
    )


def _entry_gone(
    key: BaselineKey,
    allowed: int,
    now: int,
    display: str,
    baseline: Baseline,
    folder: Path,
    cwd: Path,
) -> Diagnostic:
    where = shown(folder / key.path, cwd)
    subject = f"{key.code} for {key.knob} in {where}" if key.knob else f"{key.code} in {where}"
    if now == 0:
        message = f"The baseline lists {subject}, which the check no longer reports."
    else:
        message = f"The baseline allows {allowed} of {subject}, and the check now reports {now}."
    line, column = baseline.lines.get(key, (0, 0))
    return KNB203.diagnostic(
        display,
        line,
        column,
        message,
        fix=f"Shrink the baseline: knobs check --baseline {display} --write-baseline {display}",
        knob=key.knob or None,
    )
