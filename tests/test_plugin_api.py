"""`knobregistry.testing`: `knobs check` as one assertion in a project's own test."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from knobregistry.check.diagnostics import Severity
from knobregistry.testing import assert_in_sync, check_project
from tests.sample_project import NEW_GATE_FAILURE, append, edit, project


def test_in_sync_returns_the_result(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = assert_in_sync(root / "registry.yaml", cwd=root)
    assert (result.drift, result.knobs, result.files, result.registry) == (
        False,
        4,
        3,
        "registry.yaml",
    )


def test_drift_fails_with_the_check_lines(tmp_path: Path) -> None:
    root = project(tmp_path)
    append(root)
    with pytest.raises(AssertionError) as caught:
        assert_in_sync(root / "registry.yaml", cwd=root)
    assert str(caught.value) == (
        "knobs check found drift:\n"
        + NEW_GATE_FAILURE
        + "\nFound 1 error: 5 knobs in 3 files checked against registry.yaml (policy all).\n"
    )


def test_a_registry_that_does_not_load(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "registry.yaml").write_text("version: 2\n", encoding="utf-8")
    with pytest.raises(AssertionError) as caught:
        assert_in_sync(root / "registry.yaml", cwd=root)
    assert str(caught.value) == (
        "The registry cannot be checked:\nregistry.yaml:1:1: version: expected 1, got the integer 2"
    )


def test_baseline_and_today(tmp_path: Path) -> None:
    root = project(tmp_path)
    edit(
        root / "registry.yaml",
        "    triage: untriaged\n",
        "    triage: untriaged\n    expires: 2026-06-30\n",
    )
    append(root)
    baseline = root / "b.json"
    baseline.write_text(
        '{"version": 1, "findings": [{"code": "KNB001", "knob": "PRIMUS_NEW_TRITON", '
        '"path": "pkg/model.py", "count": 1}]}',
        encoding="utf-8",
    )
    result = assert_in_sync(
        root / "registry.yaml", baseline=baseline, today=date(2026, 6, 1), cwd=root
    )
    assert [(d.code, d.severity) for d in result.diagnostics] == [("KNB202", Severity.WARNING)]
    assert result.baselined == 1
    late = check_project(
        root / "registry.yaml", baseline=baseline, today=date(2026, 7, 1), cwd=root
    )
    assert [d.code for d in late.diagnostics] == ["KNB201", "KNB202"]
    with pytest.raises(AssertionError, match="KNB201 error: The waiver of PRIMUS_FP8 expired"):
        assert_in_sync(root / "registry.yaml", baseline=baseline, today=date(2026, 7, 1), cwd=root)
