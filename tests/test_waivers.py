"""Waivers: an entry with `expires` lets a knob through until that day; then `knobs check` fails."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from knobregistry.check.rules.waivers import waiver_diagnostics, waivers
from knobregistry.registry import load_registry
from tests.sample_project import IN_SYNC, check, project

WAIVER = (
    "    triage: exempt\n"
    "    reason: The FP8 path is being rewritten.\n"
    "    expires: 2026-06-30\n"
    "    owner: fp8-team\n"
)

EXPIRED = (
    "registry.yaml:24:5: KNB201 error: The waiver of PRIMUS_FP8 expired on 2026-06-30 (triage "
    "exempt, "
    'owner fp8-team, reason: "The FP8 path is being rewritten.").\n'
    "    Triage PRIMUS_FP8 (set `triage` under knobs.PRIMUS_FP8 in registry.yaml and record the "
    "evidence) and remove `expires`; or, if fp8-team agrees, move `expires` to a later date.\n"
    "\n"
    "Found 1 error: 4 knobs in 3 files checked against registry.yaml (policy all).\n"
)

NO_OWNER = (
    "registry.yaml:24:5: KNB202 warning: The waiver of PRIMUS_FP8 (until 2026-06-30) names no "
    "owner, "
    "so nobody is asked to triage it when it runs out.\n"
    "    Add `owner:` (a person, a team or a handle) under knobs.PRIMUS_FP8.\n"
    "\n"
    "Found 1 warning: 4 knobs in 3 files checked against registry.yaml (policy all).\n"
)


def waived(tmp_path: Path, waiver: str = WAIVER) -> Path:
    root = project(tmp_path)
    registry = root / "registry.yaml"
    text = registry.read_text(encoding="utf-8")
    fp8 = text.index("  PRIMUS_FP8:")
    head, tail = text[:fp8], text[fp8:]
    registry.write_text(head + tail.replace("    triage: untriaged\n", waiver, 1), encoding="utf-8")
    return root


def test_a_waiver_holds_through_its_expiry_day(tmp_path: Path) -> None:
    root = waived(tmp_path)
    assert check(root, "--today", "2026-06-30") == (0, IN_SYNC, "")


def test_an_expired_waiver_fails(tmp_path: Path) -> None:
    root = waived(tmp_path)
    assert check(root, "--today", "2026-07-01") == (1, EXPIRED, "")


def test_without_today_the_real_date_decides(tmp_path: Path) -> None:
    root = waived(tmp_path, WAIVER.replace("2026-06-30", "2001-01-01"))
    code, out, _ = check(root)
    assert code == 1
    assert "KNB201 error: The waiver of PRIMUS_FP8 expired on 2001-01-01" in out
    far = waived(tmp_path / "far", WAIVER.replace("2026-06-30", "9999-12-31"))
    assert check(far)[0] == 0


def test_a_waiver_without_owner_is_a_warning(tmp_path: Path) -> None:
    root = waived(tmp_path, WAIVER.replace("    owner: fp8-team\n", ""))
    assert check(root, "--today", "2026-01-01") == (0, NO_OWNER, "")


def test_expired_and_ownerless_both_report(tmp_path: Path) -> None:
    root = waived(tmp_path, WAIVER.replace("    owner: fp8-team\n", ""))
    code, out, _ = check(root, "--today", "2027-01-01")
    assert code == 1
    assert [line.split(" ")[1] for line in out.splitlines() if line.startswith("registry")] == [
        "KNB201",
        "KNB202",
    ]
    assert "if its owner agrees" in out


def test_a_deadline_on_an_untriaged_knob_is_a_waiver_too(tmp_path: Path) -> None:
    root = waived(tmp_path, "    triage: untriaged\n    expires: 2026-06-30\n    owner: fp8-team\n")
    code, out, _ = check(root, "--today", "2026-07-01")
    assert code == 1
    assert out.splitlines()[0] == (
        "registry.yaml:23:5: KNB201 error: The waiver of PRIMUS_FP8 expired on 2026-06-30 "
        "(triage untriaged, owner fp8-team)."
    )


def test_a_bad_today_is_a_usage_error(tmp_path: Path) -> None:
    code, out, err = check(waived(tmp_path), "--today", "30/06/2026")
    assert (code, out) == (2, "")
    assert "'30/06/2026' does not match the format '%Y-%m-%d'" in err


@pytest.mark.parametrize("fmt", ["json", "github", "sarif"])
def test_every_format_reports_the_expired_waiver(tmp_path: Path, fmt: str) -> None:
    code, out, _ = check(waived(tmp_path), "--today", "2026-07-01", "--format", fmt)
    assert code == 1
    assert "KNB201" in out


def test_the_api_lists_waivers_and_judges_a_day(tmp_path: Path) -> None:
    registry = load_registry(waived(tmp_path) / "registry.yaml")
    (waiver,) = waivers(registry)
    assert (waiver.name, waiver.expires, waiver.owner) == (
        "PRIMUS_FP8",
        date(2026, 6, 30),
        "fp8-team",
    )
    assert not waiver.expired(date(2026, 6, 30)) and waiver.expired(date(2026, 7, 1))
    found = waiver_diagnostics(registry, today=date(2026, 7, 1), cwd=tmp_path)
    assert [(d.code, d.path, d.line, d.column, d.knob) for d in found] == [
        ("KNB201", "registry.yaml", 24, 5, "PRIMUS_FP8")
    ]
