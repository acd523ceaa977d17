"""`knobs explain` never prints a control character it read from the registry or the code:
escapes are written as text (`\\x1b`), a line break in a field continues the field."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from knobregistry.explain.explanation import explain
from knobregistry.registry import load_registry
from knobregistry.report.explain import print_explain_rich
from tests.conftest import run_knobs
from tests.sample_project import MODEL, REGISTRY, project

TITLE = "\\x1b]0;title\\x07"  # sets the terminal's title, as YAML escapes
HOSTILE = f"""\
        gates:
          kernel: "glue{TITLE}"
          pass: both
        triage: breaks-bitwise
        breaks: backward
        cost: "slower\\nby{TITLE} 1%"
        owner: "team{TITLE}\\ntwo"
        evidence:
          hardware: "MI355X\\nsetup: forged{TITLE}"
        notes: "first{TITLE}\\r\\nsecond\\u2028third\\x0bfourth"
"""

# A comment with raw escape bytes and a tab, on the line of the site.
CODE = MODEL.replace(
    'HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n',
    'HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"  #\t\x1b]0;code\x07\x1b[2J\n',
)

EXPECTED = """\
PRIMUS_HC_TRITON
  registry   registry.yaml:7:3
  gates      glue\\x1b]0;title\\x07, pass both
  default    "1", on by default
  role       not stated; the scan proposes unknown: the name PRIMUS_HC_TRITON says TRITON, a hint of a kernel choice,
             but no code it reaches shows one: words alone are not evidence
  triage     breaks-bitwise (in backward)
  evidence   hardware: MI355X\\nsetup: forged\\x1b]0;title\\x07
  cost       slower
             by\\x1b]0;title\\x07 1%
  owner      team\\x1b]0;title\\x07
             two
  notes      first\\x1b]0;title\\x07
             second
             third
             fourth
  profiles   none sets it

Read at 1 site: on by default ("0" turns it off).

pkg/model.py:5:6 (in <module>)
  default "1"; on by default: yes; polarity enable; turned off by "0"
    3 | from pkg.envs import env_flag
    4 |
  > 5 | HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"  #  \\x1b]0;code\\x07\\x1b[2J
    6 | ROPE = env_flag("PRIMUS_ROPE_TRITON")
    7 | FP8 = os.environ.get("PRIMUS_FP8", "0") == "1"
"""  # noqa: E501


def hostile_project(tmp_path: Path) -> Path:
    registry = REGISTRY.replace(
        "        triage: breaks-bitwise\n        breaks: backward\n", HOSTILE
    ).replace(
        "        gates:\n          kernel: hyper-connection glue (Triton)\n          pass: both\n",
        "",
        1,
    )
    return project(tmp_path, registry, pkg__model_py=CODE)


def test_text_escapes_what_it_read(tmp_path: Path) -> None:
    root = hostile_project(tmp_path)
    result = run_knobs("explain", "PRIMUS_HC_TRITON", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (0, EXPECTED, "")


def test_the_rich_view_escapes_what_it_read(tmp_path: Path) -> None:
    root = hostile_project(tmp_path)
    explanation = explain(load_registry(root / "registry.yaml"), "PRIMUS_HC_TRITON", cwd=root)
    assert explanation is not None
    buffer = io.StringIO()
    print_explain_rich(explanation, Console(file=buffer, force_terminal=True, width=200))
    styled = buffer.getvalue()
    assert "\x07" not in styled and "\x1b]" not in styled and "\x1b[2J" not in styled
    assert styled.count("\\x1b]0;title\\x07") == 5
    assert "\\x1b]0;code\\x07\\x1b[2J" in styled
