"""`knobs check` as a use case: every check on one scan, then the baseline written and applied.

The CLI, the pytest plugin and knobregistry.testing call `check_registry`; it returns data
(``Checked``) and renders nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from knobregistry._text.paths import shown
from knobregistry.check.all_checks import CHECKS
from knobregistry.check.baseline import BaselineError, Written, load_baseline
from knobregistry.check.baseline import write_baseline as write_file
from knobregistry.check.rules.baseline_entry_gone import apply_baseline
from knobregistry.check.run import CheckResult, run_check
from knobregistry.registry import Registry


@dataclass(frozen=True, slots=True, kw_only=True)
class Checked:
    """One `knobs check`: its result (the baseline applied when there is one), the baseline
    it wrote, and why the baseline could not be written or applied (then ``result`` is the
    check's alone)."""

    result: CheckResult
    written: Written | None = None
    refused: str | None = None

    def accepted(self) -> CheckResult:
        """The result; BaselineError when the baseline could not be written or applied."""
        if self.refused is not None:
            raise BaselineError(self.refused)
        return self.result


def check_registry(
    registry: Registry,
    paths: Sequence[Path] | None = None,
    *,
    cwd: Path | None = None,
    today: date | None = None,
    baseline: Path | None = None,
    write_baseline: Path | None = None,
    force: bool = False,
) -> Checked:
    """Every check of `knobs check` on one scan of ``registry``'s scope (``paths`` narrow
    it); then, with ``write_baseline``, the baseline that accepts the findings written there
    (it may only grow with ``force``) and applied; with ``baseline``, that file applied.

    Raises RegistryError for a registry whose scope cannot be scanned.
    """
    here = cwd if cwd is not None else Path.cwd()
    result = run_check(registry, paths, cwd=here, families=CHECKS, today=today)
    written: Written | None = None
    try:
        if write_baseline is not None:
            if paths:
                raise BaselineError("--write-baseline needs the whole scope; leave out PATHS.")
            if baseline is not None and baseline.absolute() != write_baseline.absolute():
                raise BaselineError(
                    "--baseline and --write-baseline name different files; name one file."
                )
            written = write_file(result, write_baseline, cwd=here, force=force)
            baseline = write_baseline
        if baseline is not None:
            accepted = load_baseline(baseline, shown(baseline, here))
            result = apply_baseline(result, accepted, path=baseline, cwd=here)
    except BaselineError as error:
        return Checked(result=result, written=written, refused=str(error))
    return Checked(result=result, written=written)
