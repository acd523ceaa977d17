"""`knobs check` as a plain assertion, for projects that prefer their own test to the plugin.

from knobregistry.testing import assert_in_sync

def test_knobs_in_sync():
    assert_in_sync("registry.yaml")
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from knobregistry._text.paths import shown
from knobregistry.check.baseline import BaselineError
from knobregistry.check.run import CheckResult
from knobregistry.check.use_case import check_registry
from knobregistry.registry import RegistryError, load_registry
from knobregistry.report.check_text import render_check_text


def check_project(
    registry_path: str | os.PathLike[str],
    *,
    baseline: str | os.PathLike[str] | None = None,
    today: date | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> CheckResult:
    """Every check of `knobs check` for the registry at ``registry_path`` (and its baseline).

    Paths in the result are relative to ``cwd`` (default: the current folder).
    Raises RegistryError or BaselineError for a registry or baseline that cannot be used.
    """
    here = Path(cwd) if cwd is not None else Path.cwd()
    path = Path(registry_path)
    registry = load_registry(path.absolute(), display=shown(path, here))
    accepted = Path(baseline).absolute() if baseline is not None else None
    return check_registry(registry, cwd=here, today=today, baseline=accepted).accepted()


def assert_in_sync(
    registry_path: str | os.PathLike[str],
    *,
    baseline: str | os.PathLike[str] | None = None,
    today: date | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> CheckResult:
    """Fail, with the `knobs check` lines as the message, unless code and registry agree.

    Returns the result (warnings and notes included) when there is no error.
    """
    __tracebackhide__ = True
    try:
        result = check_project(registry_path, baseline=baseline, today=today, cwd=cwd)
    except RegistryError as error:
        lines = "\n".join(problem.render() for problem in error.problems)
        raise AssertionError(f"The registry cannot be checked:\n{lines}") from None
    except BaselineError as error:
        raise AssertionError(str(error)) from None
    if result.drift:
        raise AssertionError("knobs check found drift:\n" + render_check_text(result))
    return result
