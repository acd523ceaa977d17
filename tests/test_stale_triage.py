"""KNB009 StaleTriage on a copy of the example: a triaged kernel that changes fails `knobs check`
(golden text), a reformat, a comment or an unrelated function does not; waivers, the baseline,
registries from before the code was kept, and the stack's versions."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, run_knobs

SUMMARY = "12 knobs in 10 files checked against registry.yaml (policy all)."
ROPE_LINE = "    tl.store(Y + lo, x1 * cos - x2 * sin, mask=mask)\n"
RETRIAGE = (
    "knobs triage --profile bitwise --knob {knob} --compare tensors:params.pt --record -- "
    "python train.py --save-tensors params.pt"
)
ROPE_STALE = f"""\
toymodel/kernels.py:54:1: KNB009 error: TOY_ROPE_TRITON is triaged reproducible, but the code it gates changed after its latest record (2026-11-29): _rope_kernel (toymodel/kernels.py:54) changed. Profile 'bitwise' (kind bitwise) keeps it on on the strength of that verdict.
    Triage it again on the code as it is now; the new record keeps the code it was measured on:
      {RETRIAGE.format(knob="TOY_ROPE_TRITON")}

Found 1 error: {SUMMARY}
"""  # noqa: E501


def example(tmp_path: Path) -> Path:
    copy = tmp_path / "examples"
    shutil.copytree(REPO / "examples", copy, ignore=shutil.ignore_patterns("__pycache__", ".knobs"))
    return copy


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def check(root: Path, *args: str) -> tuple[int, str, str]:
    done = run_knobs("check", *args, cwd=root)
    return done.returncode, done.stdout, done.stderr


def test_the_example_is_in_sync() -> None:
    assert check(REPO / "examples") == (0, f"No problems: {SUMMARY}\n", "")


def test_editing_the_kernel_a_triaged_knob_reaches_fails_the_check(tmp_path: Path) -> None:
    root = example(tmp_path)
    edit(root, "toymodel/kernels.py", ROPE_LINE, ROPE_LINE.replace("x2 * sin", "sin * x2"))
    assert check(root) == (1, ROPE_STALE, "")


SAME = [
    # reformatted: one argument per line, spaces around nothing
    (
        "toymodel/kernels.py",
        ROPE_LINE,
        "    tl.store(\n        Y+lo,\n        x1*cos - x2*sin,\n        mask=mask,\n    )\n",
    ),
    # a comment, edited and added
    (
        "toymodel/kernels.py",
        "    # X is [batch, seq, heads, 2 * HALF] flattened to rows; COS/SIN are [seq, HALF].\n",
        "    # X: [batch, seq, heads, 2 * HALF] as rows.\n    # COS, SIN: [seq, HALF].\n",
    ),
    # a docstring added to the kernel
    ("toymodel/kernels.py", "):\n    # X is", '):\n    """Rotate one tile of rows."""\n    # X is'),
    # a function no triaged knob reaches
    ("toymodel/model.py", "std=self.config.init_std", "std=2 * self.config.init_std"),
]


@pytest.mark.parametrize(
    ("rel", "old", "new"), SAME, ids=["reformat", "comment", "docstring", "unrelated"]
)
def test_what_leaves_the_code_the_same(tmp_path: Path, rel: str, old: str, new: str) -> None:
    root = example(tmp_path)
    edit(root, rel, old, new)
    assert check(root) == (0, f"No problems: {SUMMARY}\n", "")


def _line_of(root: Path, knob: str, key: str) -> int:
    """The 1-based line of ``key`` in the knob's last record of the example's registry."""
    lines = (root / "registry.yaml").read_text(encoding="utf-8").splitlines()
    start = lines.index(f"  {knob}:")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("  TOY_"))
    return max(i for i in range(start, end) if lines[i].startswith(f"          {key}:")) + 1


def test_a_unit_that_is_gone_is_named_at_the_record(tmp_path: Path) -> None:
    root = example(tmp_path)
    edit(root, "toymodel/kernels.py", "def rope(", "def rope_apply(")
    code, out, _ = check(root)
    assert code == 1
    line = _line_of(root, "TOY_ROPE_TRITON", "code")
    assert out.startswith(
        f"registry.yaml:{line}:11: KNB009 error: TOY_ROPE_TRITON is triaged reproducible, but "
        "the code "
        "it gates changed after its latest record (2026-11-29): rope is gone from "
        "toymodel/kernels.py. Profile 'bitwise' (kind bitwise) keeps it on"
    )


def test_a_knob_no_bitwise_profile_keeps_on_is_a_warning(tmp_path: Path) -> None:
    root = example(tmp_path)
    edit(root, "toymodel/model.py", 'in ("true", "1")', 'in ("true", "1", "yes")')
    assert check(root) == (
        0,
        "toymodel/model.py:24:1: KNB009 warning: TOY_FUSED_SDPA is triaged reproducible, but "
        "the code it "
        "gates changed after its latest record (2026-11-29): _MODEL_FUSIONS[sdpa] "
        "(toymodel/model.py:24) changed. No bitwise profile keeps it on.\n"
        "    Triage it again on the code as it is now; the new record keeps the code it was "
        f"measured on:\n      {RETRIAGE.format(knob='TOY_FUSED_SDPA')}\n\n"
        f"Found 1 warning: {SUMMARY}\n",
        "",
    )


WAIVER = "    triage: reproducible\n    cost: Eager rotary"


def test_a_waiver_makes_it_a_warning_until_it_expires(tmp_path: Path) -> None:
    root = example(tmp_path)
    edit(root, "toymodel/kernels.py", ROPE_LINE, ROPE_LINE.replace("x2 * sin", "sin * x2"))
    waived = WAIVER.replace("\n", "\n    expires: 2026-12-31\n    owner: rope-team\n", 1)
    edit(root, "registry.yaml", WAIVER, waived)
    code, out, _ = check(root, "--today", "2026-12-31")
    assert code == 0
    assert out.splitlines()[0].endswith(
        "keeps it on on the strength of that verdict. Its waiver holds until 2026-12-31, "
        "owner rope-team."
    )
    assert out.endswith(f"Found 1 warning: {SUMMARY}\n")
    code, out, _ = check(root, "--today", "2027-01-01")
    assert code == 1
    assert sorted(re.findall(r" (KNB\d+) ", out)) == ["KNB009", "KNB201"]


def test_a_baseline_accepts_it_as_any_finding(tmp_path: Path) -> None:
    root = example(tmp_path)
    edit(root, "toymodel/kernels.py", ROPE_LINE, ROPE_LINE.replace("x2 * sin", "sin * x2"))
    done = run_knobs("check", "--write-baseline", "knobs-baseline.json", cwd=root)
    assert done.returncode == 0, done.stdout
    assert '"code": "KNB009", "knob": "TOY_ROPE_TRITON", "path": "toymodel/kernels.py"' in (
        root / "knobs-baseline.json"
    ).read_text(encoding="utf-8")
    assert check(root, "--baseline", "knobs-baseline.json") == (
        0,
        f"No problems: {SUMMARY} 1 finding hidden by the baseline knobs-baseline.json.\n",
        "",
    )


def _without_code(text: str) -> str:
    """The example's registry as it was before records kept the code."""
    return re.sub(r"\n          code:\n(?:            .*\n)+", "\n", text)


NO_CODE = f"""\
registry.yaml:124:11: KNB009 note: 6 knobs triaged reproducible have no record of the code they were measured on (TOY_FUSED_SDPA, TOY_RMSNORM_TRITON, TOY_ROPE_CACHE, TOY_ROPE_TRITON, TOY_SWIGLU_FUSED and TOY_SWIGLU_TRITON_BWD): the records were written before knobs kept it, so a change to that code goes unnoticed.
    If the code has not changed since the triage, record it as it is now:
      knobs fingerprint --record TOY_FUSED_SDPA TOY_RMSNORM_TRITON TOY_ROPE_CACHE TOY_ROPE_TRITON TOY_SWIGLU_FUSED TOY_SWIGLU_TRITON_BWD
    else triage them again with --record:
      {RETRIAGE.format(knob="TOY_FUSED_SDPA --knob TOY_RMSNORM_TRITON --knob TOY_ROPE_CACHE --knob TOY_ROPE_TRITON --knob TOY_SWIGLU_FUSED --knob TOY_SWIGLU_TRITON_BWD")}

Found 1 note: {SUMMARY}
"""  # noqa: E501


def test_a_registry_from_before_the_code_was_kept_loads_and_checks(tmp_path: Path) -> None:
    root = example(tmp_path)
    registry = root / "registry.yaml"
    older = _without_code(registry.read_text(encoding="utf-8"))
    assert "code:" not in older and older.count("- date:") == 17
    registry.write_text(older, encoding="utf-8")
    assert check(root) == (0, NO_CODE, "")
    # the note's command adds the code, and the check is then clean
    done = run_knobs("fingerprint", "--record", cwd=root)
    assert done.returncode == 0, done.stderr
    assert check(root) == (0, f"No problems: {SUMMARY}\n", "")


def test_a_stack_version_change_is_a_note(tmp_path: Path) -> None:
    installed = importlib.metadata.version("torch")
    root = example(tmp_path)
    text = (root / "registry.yaml").read_text(encoding="utf-8")
    rope = text.index("  TOY_ROPE_TRITON:")
    end = text.index("\n  TOY_SWIGLU_FUSED:")
    older = text[rope:end].replace("torch: 2.13.0+cpu", "torch: 2.12.1+rocm6.4")
    (root / "registry.yaml").write_text(text[:rope] + older + text[end:], encoding="utf-8")
    code, out, _ = check(root)
    line = _line_of(root, "TOY_ROPE_TRITON", "versions")
    assert code == 0
    assert out == (
        f"registry.yaml:{line}:11: KNB009 note: torch is {installed} where knobs runs, but "
        "TOY_ROPE_TRITON was triaged on torch 2.12.1+rocm6.4: the verdict may not hold on "
        "this stack.\n"
        "    Triage again on this stack to confirm (or ignore this note if knobs runs on another "
        f"stack than the training):\n      {RETRIAGE.format(knob='TOY_ROPE_TRITON')}\n\n"
        f"Found 1 note: {SUMMARY}\n"
    )


def test_a_narrowed_check_holds_only_the_knobs_it_scans(tmp_path: Path) -> None:
    root = example(tmp_path)
    edit(root, "toymodel/kernels.py", ROPE_LINE, ROPE_LINE.replace("x2 * sin", "sin * x2"))
    assert check(root, "toymodel/model.py") == (  # reads no RoPE gate
        0,
        "No problems: 1 knob in 1 file checked against registry.yaml (policy all). Stale "
        "entries (KNB002) are not checked when paths are given.\n",
        "",
    )
