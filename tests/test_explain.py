"""`knobs explain`: the registry entry, the profiles that set the knob, and every site, golden."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from knobregistry.explain.explanation import explain
from knobregistry.registry import load_registry
from knobregistry.report.explain import print_explain_rich
from tests.conftest import run_knobs, write_tree
from tests.sample_project import REGISTRY, project

EVIDENCE = """\
        triage: breaks-bitwise
        breaks: backward
        cost: About 0.5% slower per iteration.
        owner: kernels-team
        evidence:
          hardware: MI355X
          setup: 8 layers, PP2xEP4, mock data
          compare: lm-loss strings of two runs
"""

EXTRA = """
    external:
      NCCL_ALGO:
        description: RCCL's collective algorithm; Ring is deterministic.
        library: RCCL
        set_by: PRIMUS_DETERMINISTIC=1
    profiles:
      bitwise:
        description: Every fusion off.
        kind: bitwise
        env:
          NCCL_ALGO: Ring
        select:
          - default_on: true
            triage_not: reproducible
            set: "off"
      debug:
        description: Bitwise, and the ROPE fusion off too.
        extends: bitwise
        env:
          PRIMUS_ROPE_TRITON: "0"
    """

OTHER = """
    import os


    def hc_enabled():
        return os.getenv("PRIMUS_HC_TRITON", "1") != "0"
    """


@pytest.fixture
def root(tmp_path: Path) -> Path:
    registry = REGISTRY.replace(
        "        triage: breaks-bitwise\n        breaks: backward\n", EVIDENCE
    )
    return project(tmp_path, registry + EXTRA, pkg__other_py=OTHER)


HC = """\
PRIMUS_HC_TRITON
  registry   registry.yaml:7:3
  gates      hyper-connection glue (Triton), pass both
  default    "1", on by default
  role       not stated; the scan proposes unknown: the name PRIMUS_HC_TRITON says TRITON, a hint of a kernel choice,
             but no code it reaches shows one: words alone are not evidence
  triage     breaks-bitwise (in backward)
  evidence   hardware: MI355X
             setup: 8 layers, PP2xEP4, mock data
             compared: lm-loss strings of two runs
  cost       About 0.5% slower per iteration.
  owner      kernels-team
  profiles   bitwise: "0" (set by profiles.bitwise.select[0])
             debug: "0" (set by profiles.bitwise.select[0])

Read at 2 sites: on by default ("0" turns it off).

pkg/model.py:5:6 (in <module>)
  default "1"; on by default: yes; polarity enable; turned off by "0"
    3 | from pkg.envs import env_flag
    4 |
  > 5 | HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"
    6 | ROPE = env_flag("PRIMUS_ROPE_TRITON")
    7 | FP8 = os.environ.get("PRIMUS_FP8", "0") == "1"

pkg/other.py:5:12 (in hc_enabled)
  default "1"; on by default: yes; polarity enable; turned off by "0"
    3 |
    4 | def hc_enabled():
  > 5 |     return os.getenv("PRIMUS_HC_TRITON", "1") != "0"
"""  # noqa: E501

ROPE = """\
PRIMUS_ROPE_TRITON
  registry   registry.yaml:21:3
  default    "1", on by default
  role       not stated; the scan proposes unknown: the name PRIMUS_ROPE_TRITON says TRITON, a hint of a kernel choice,
             but no code it reaches shows one: words alone are not evidence
  triage     reproducible
  evidence   -
  cost       -
  owner      -
  profiles   debug: "0" (set by profiles.debug.env.PRIMUS_ROPE_TRITON)

Read at 1 site: on by default ("0" turns it off).

pkg/model.py:6:8 (in <module>)
  default "1"; on by default: yes; polarity enable; turned off by "0"; via pkg.envs.env_flag
    4 |
    5 | HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"
  > 6 | ROPE = env_flag("PRIMUS_ROPE_TRITON")
    7 | FP8 = os.environ.get("PRIMUS_FP8", "0") == "1"
    8 | BLOCK = int(os.environ.get("PRIMUS_BLOCK", "64"))
"""  # noqa: E501

NCCL = """\
NCCL_ALGO
  registry   registry.yaml:36:3 (external: read by a library)
  what       RCCL's collective algorithm; Ring is deterministic.
  library    RCCL
  set by     PRIMUS_DETERMINISTIC=1
  profiles   bitwise: "Ring" (set by profiles.bitwise.env.NCCL_ALGO)
             debug: "Ring" (set by profiles.bitwise.env.NCCL_ALGO)

No code in the scan scope reads it.
"""


@pytest.mark.parametrize(
    ("knob", "expected"),
    [("PRIMUS_HC_TRITON", HC), ("PRIMUS_ROPE_TRITON", ROPE), ("NCCL_ALGO", NCCL)],
)
def test_explain_golden(root: Path, knob: str, expected: str) -> None:
    result = run_knobs("explain", knob, cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")


def test_value_knob_and_unregistered_knob(root: Path) -> None:
    block = run_knobs("explain", "PRIMUS_BLOCK", cwd=root).stdout
    assert "  triage     exempt: A block size, not a kernel switch.\n" in block
    assert "  profiles   none sets it\n" in block
    assert '  default "64"; a value (no on/off)\n' in block
    with (root / "pkg/model.py").open("a", encoding="utf-8") as file:
        file.write('DUMP = "PRIMUS_DUMP" in os.environ\n')
    dump = run_knobs("explain", "PRIMUS_DUMP", cwd=root, env={"COLUMNS": "200"})  # one line each
    assert dump.stdout.splitlines()[:5] == [
        "PRIMUS_DUMP",
        "  registry   not registered in registry.yaml (the policy requires it)",
        "  role       not stated; the scan proposes debug: the name PRIMUS_DUMP says DUMP "
        "(logging, profiling, tests or debugging)",
        "  profiles   none sets it",
        "",
    ]
    assert (
        "  no default; on by default: no; polarity enable; turned off only by unsetting it\n"
        in dump.stdout
    )


def test_explain_from_another_folder(root: Path) -> None:
    result = run_knobs(
        "explain", "PRIMUS_ROPE_TRITON", "--registry", "../registry.yaml", cwd=root / "pkg"
    )
    assert result.stdout.splitlines()[1] == "  registry   ../registry.yaml:21:3"
    assert "\nmodel.py:6:8 (in <module>)\n" in result.stdout


def test_unknown_knob_exits_2_with_a_suggestion(root: Path) -> None:
    result = run_knobs("explain", "PRIMUS_HC_TRITN", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "Error: registry.yaml does not register PRIMUS_HC_TRITN, and no code in its scan scope "
        "reads it. Did you mean PRIMUS_HC_TRITON?\n",
    )
    assert run_knobs("explain", "NOTHING_LIKE_IT", cwd=root).stderr == (
        "Error: registry.yaml does not register NOTHING_LIKE_IT, and no code in its scan scope "
        "reads it.\n"
    )


def test_bad_registry_exits_2(root: Path) -> None:
    (root / "registry.yaml").write_text("version: 2\n", encoding="utf-8")
    result = run_knobs("explain", "PRIMUS_HC_TRITON", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "registry.yaml:1:1: version: expected 1, got the integer 2\n",
    )


def test_rich_view_highlights_the_code(root: Path) -> None:
    explanation = explain(load_registry(root / "registry.yaml"), "PRIMUS_HC_TRITON", cwd=root)
    assert explanation is not None
    buffer = io.StringIO()
    print_explain_rich(explanation, Console(file=buffer, force_terminal=True, width=120))
    styled = buffer.getvalue()
    assert "\x1b[" in styled
    assert "PRIMUS_HC_TRITON" in styled and "hc_enabled" in styled


LAUNCHED_REGISTRY = """\
version: 1
scan:
  paths: [src, launch]
  match: ["DEMO_*"]
knobs:
  DEMO_FUSED:
    default: "1"
    default_on: true
    triage: breaks-bitwise
"""

LAUNCHED_EXPLAIN = """\
DEMO_FUSED
  registry   registry.yaml:6:3
  default    "1", on by default
  role       not stated; the scan proposes unknown: the name DEMO_FUSED says FUSED, a hint of a kernel choice, but no
             code it reaches shows one: words alone are not evidence
  triage     breaks-bitwise
  evidence   -
  cost       -
  owner      -
  profiles   none sets it

Set by 3 launcher writes:
  launch/run.sh:2:8: export "1"
  launch/run.sh:4:3: prefix, computed when it runs: $(pick) (its value is not known)
    when [[ -f /opt/fast ]]
  launch/run.sh:6:15: prefix "0"

Read at 1 site: on by default ("0" turns it off).

src/model.py:2:9 (in <module>)
  default "1"; on by default: yes; polarity enable; turned off by "0"
    1 | import os
  > 2 | FUSED = os.environ.get("DEMO_FUSED", "1") != "0"
"""  # noqa: E501


def test_explain_lists_the_launcher_writes_that_set_the_knob(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "registry.yaml": LAUNCHED_REGISTRY,
            "src/model.py": 'import os\nFUSED = os.environ.get("DEMO_FUSED", "1") != "0"\n',
            "launch/run.sh": (
                "#!/bin/bash\nexport DEMO_FUSED=1\nif [[ -f /opt/fast ]]; then\n"
                "  DEMO_FUSED=$(pick) python -m src.model\nfi\n"
                "docker run -e DEMO_FUSED=0 img\n"
            ),
        },
    )
    result = run_knobs("explain", "DEMO_FUSED", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == LAUNCHED_EXPLAIN


def test_explain_shows_a_computed_default_as_written(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "registry.yaml": LAUNCHED_REGISTRY,
            "src/model.py": 'import os\nFUSED = os.environ.get("DEMO_FUSED", "1") != "0"\n',
            "launch/run.sh": 'echo "${DEMO_ROOT:-${BASE}/runs}"\n',
        },
    )
    result = run_knobs("explain", "DEMO_ROOT", cwd=tmp_path)
    assert result.returncode == 0
    assert (
        "  default computed when it runs: ${BASE}/runs (not known); a value (no on/off)\n"
        in result.stdout
    )


def test_a_site_says_what_it_knows_of_its_gate(tmp_path: Path) -> None:
    """A site that leaves unset to the code is not "off by default"; a gate that one value
    turns on (`== "1"`) names that value, not the 22 others that turn it off."""
    write_tree(
        tmp_path,
        {
            "registry.yaml": "version: 1\nscan:\n  paths: [src]\n  policy: all\nknobs: {}\n",
            "src/model.py": (
                "import os\n"
                'TRI = {"1": True, "0": False}.get(os.environ.get("DEMO_TRI", ""))\n'
                'EQ = os.environ.get("DEMO_EQ", "0") == "1"\n'
            ),
        },
    )
    verdicts = []
    for knob in ("DEMO_TRI", "DEMO_EQ"):
        lines = run_knobs("explain", knob, cwd=tmp_path).stdout.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("src/model.py:"))
        verdicts.append(lines[at + 1])
    assert verdicts == [
        '  default ""; on by default: ? (unset, the code decides (the value is None)); polarity '
        'enable; turned off by "0"',
        '  default "0"; on by default: no; polarity enable; turned on only by "1": any other value '
        "turns it off",
    ]
