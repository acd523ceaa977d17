"""`knobs fingerprint`: the code each knob gates, against its latest record; --record adds it to
records written before knobs kept it, and never over code that changed since."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO, run_knobs, write_tree
from tests.test_stale_triage import ROPE_LINE, _without_code, edit, example

ROPE = """\
TOY_ROPE_TRITON (8 units, reproducible): unchanged since its latest record (2026-11-29)
  toymodel/kernels.py:27   _grid                    b00b4f247e760c87
  toymodel/kernels.py:54   _rope_kernel             c395705c19d36002
  toymodel/kernels.py:145  rope                     b9d1aff3761a657b
  toymodel/layers.py:27    _triton_kernels          f8acdb49c1c4794d
  toymodel/layers.py:101   rope_eager               ffbc4a7050034816
  toymodel/layers.py:110   _RoPETriton.forward      5535ae2500a2bd9b
  toymodel/layers.py:115   _RoPETriton.backward     459da0d150b24e29
  toymodel/layers.py:135   RotaryEmbedding.forward  c72b9366e995e715
"""


def fingerprint(root: Path, *args: str) -> tuple[int, str, str]:
    done = run_knobs("fingerprint", *args, cwd=root)
    return done.returncode, done.stdout, done.stderr


def test_the_code_a_knob_gates_with_its_digests() -> None:
    assert fingerprint(REPO / "examples", "TOY_ROPE_TRITON") == (0, ROPE, "")


def test_changed_code_is_named_and_never_recorded_over(tmp_path: Path) -> None:
    root = example(tmp_path)
    edit(root, "toymodel/kernels.py", ROPE_LINE, ROPE_LINE.replace("x2 * sin", "sin * x2"))
    before = (root / "registry.yaml").read_bytes()
    code, out, _ = fingerprint(root, "--record", "TOY_ROPE_TRITON")
    assert code == 1
    assert out.splitlines()[:2] == [
        "TOY_ROPE_TRITON (8 units, reproducible): changed since its latest record (2026-11-29): "
        "_rope_kernel (toymodel/kernels.py:54) changed; triage it again:",
        "    knobs triage --profile bitwise --knob TOY_ROPE_TRITON --compare tensors:params.pt "
        "--record -- python train.py --save-tensors params.pt",
    ]
    assert (root / "registry.yaml").read_bytes() == before


def test_record_adds_the_code_to_older_records_and_nothing_else(tmp_path: Path) -> None:
    root = example(tmp_path)
    registry = root / "registry.yaml"
    current = registry.read_text(encoding="utf-8")
    registry.write_text(_without_code(current), encoding="utf-8")
    code, out, _ = fingerprint(root, "--record")
    assert code == 0
    assert out.splitlines()[0] == (
        "TOY_FUSED_LINEAR_CE (1 unit, breaks-bitwise): kept now in its latest record "
        "(2026-11-29), which kept no code"
    )
    assert registry.read_text(encoding="utf-8") == current  # comments, order, quoting kept
    assert fingerprint(root, "--record")[0] == 0
    assert registry.read_text(encoding="utf-8") == current  # nothing more to add


def test_json(tmp_path: Path) -> None:
    code, out, _ = fingerprint(REPO / "examples", "TOY_ROPE_TRITON", "--format", "json")
    assert code == 0
    (knob,) = json.loads(out)["knobs"]
    assert {k: knob[k] for k in ("name", "triage", "status", "record", "recorded", "changed")} == {
        "name": "TOY_ROPE_TRITON",
        "triage": "reproducible",
        "status": "matches",
        "record": "2026-11-29",
        "recorded": False,
        "changed": [],
    }
    assert knob["units"][1] == {
        "path": "toymodel/kernels.py",
        "name": "_rope_kernel",
        "line": 54,
        "digest": "c395705c19d36002",
    }


def test_a_knob_nothing_registers_or_reads(tmp_path: Path) -> None:
    assert fingerprint(REPO / "examples", "TOY_NOPE") == (
        2,
        "",
        "knobs fingerprint: error: registry.yaml does not register TOY_NOPE, and no code in its "
        "scan scope reads it.\n",
    )


def test_a_unit_whose_name_yaml_reads_otherwise_is_quoted(tmp_path: Path) -> None:
    """A module-level `on = ...` (tests/test_triage_search.py's job.py has one) is the unit
    `on`, which YAML 1.1 reads as true unless it is quoted."""
    project = write_tree(
        tmp_path,
        {
            "registry.yaml": """
                version: 1
                scan: {paths: [job.py], policy: all}
                knobs:
                  SYN_FLAG:
                    default: "1"
                    default_on: true
                    triage: reproducible
                    evidence:
                      records:
                        - {date: 2026-05-01, verdict: reproducible}
            """,
            "job.py": 'import os\n\non = os.environ.get("SYN_FLAG", "1") != "0"\n',
        },
    )
    assert fingerprint(project, "--record")[0] == 0
    text = (project / "registry.yaml").read_text(encoding="utf-8")
    assert '{job.py: {"on": ' in text  # the record was written in flow style
    assert check_clean(project)


def check_clean(project: Path) -> bool:
    done = run_knobs("check", cwd=project)
    return done.returncode == 0 and done.stdout.startswith("No problems:")
