"""`knobs triage --record` changes the registry; its generated docs follow, and say so,
so the next `knobs check` passes instead of failing on them (KNB204)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_knobs, write_tree
from tests.docs_pages import docs_page

REGISTRY = """
    version: 1
    scan: {paths: [src], policy: all}
    knobs:
      SYN_FUSED:
        gates: {kernel: a fused kernel, pass: both}
        default: "1"
        default_on: true
        role: kernel
        triage: untriaged
    profiles:
      bitwise:
        description: Bit for bit.
        kind: bitwise
        select:
          - default_on: true
            triage_not: [reproducible, exempt]
            set: "off"
"""

FILES = {
    "registry.yaml": REGISTRY,
    "src/gate.py": 'import os\n\nFUSED = os.environ.get("SYN_FUSED", "1") != "0"\n',
    "job.py": "print(42)\n",
}


def test_record_refreshes_the_generated_docs(tmp_path: Path) -> None:
    project = write_tree(tmp_path, FILES)
    assert run_knobs("docs", "--write", "KNOBS.md", cwd=project).returncode == 0
    assert run_knobs("check", cwd=project).returncode == 0
    before = (project / "KNOBS.md").read_text(encoding="utf-8")
    done = run_knobs(
        "triage", "-k", "SYN_FUSED", "--record", "--", sys.executable, "job.py", cwd=project
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines()[-1] == (
        "knobs triage: Refreshed 2 generated blocks of KNOBS.md from the recorded registry."
    )
    after = (project / "KNOBS.md").read_text(encoding="utf-8")
    assert after != before and "reproducible" in after
    check = run_knobs("check", cwd=project)
    assert (check.returncode, check.stdout) == (
        0,
        "No problems: 1 knob in 1 file checked against registry.yaml (policy all).\n",
    )


def test_a_doc_with_broken_markers_is_named_not_written(tmp_path: Path) -> None:
    project = write_tree(tmp_path, FILES)
    run_knobs("docs", "--write", "KNOBS.md", cwd=project)
    doc = project / "KNOBS.md"
    broken = doc.read_text(encoding="utf-8").replace("<!-- knobs:end", "<!-- knobs:ned", 1)
    doc.write_text(broken, encoding="utf-8")
    done = run_knobs(
        "triage", "-k", "SYN_FUSED", "--record", "--", sys.executable, "job.py", cwd=project
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines()[-1] == (
        "knobs triage: KNOBS.md has broken markers; fix them, then `knobs docs --write KNOBS.md`."
    )
    assert doc.read_text(encoding="utf-8") == broken


def _worked_example() -> list[tuple[str, str]]:
    """The blocks of docs/triage.md's worked example, in order: ("sh", commands),
    ("diff", lines) and ("out", the output of the commands before it)."""
    text = docs_page("triage.md")
    section = text.split("\n### A worked example\n", 1)[1].split("\n## ", 1)[0]
    blocks: list[tuple[str, str]] = []
    for chunk in re.split(r"\n\n", section):
        fenced = re.fullmatch(r"```(sh|diff)\n(.*)\n```", chunk.strip("\n"), flags=re.DOTALL)
        if fenced:
            blocks.append((fenced.group(1), fenced.group(2)))
        elif chunk.startswith("    "):
            out = "\n".join(line[4:] for line in chunk.splitlines())
            if blocks and blocks[-1][0] == "out":
                blocks[-1] = ("out", blocks[-1][1] + "\n\n" + out)
            else:
                blocks.append(("out", out))
    return blocks


@pytest.mark.slow
def test_the_worked_example_of_a_stale_triage_runs(tmp_path: Path) -> None:
    """docs/triage.md, "A worked example": on a copy of the example, the check passes; the
    kernel edit the doc shows fails it as the doc prints; the triage the fix names (real runs
    of train.py) records the new code; the check passes again."""
    root = tmp_path / "toy"
    shutil.copytree(REPO / "examples", root, ignore=shutil.ignore_patterns("__pycache__", ".knobs"))
    python = Path(sys.executable).parent
    env = {"PATH": f"{python}{os.pathsep}{os.environ['PATH']}"}  # `python` is this one
    blocks = _worked_example()
    assert [kind for kind, _ in blocks] == ["sh", "out", "diff", "sh", "out", "sh", "out"]
    last = ""
    for kind, body in blocks:
        if kind == "sh":
            for line in body.splitlines():
                words = shlex.split(line)
                assert words[0] == "knobs", line
                done = run_knobs(*words[1:], cwd=root, env=env)
                assert done.returncode in (0, 1), done.stderr
                last = done.stdout
        elif kind == "diff":
            old = [line[1:] for line in body.splitlines() if line.startswith("-")]
            new = [line[1:] for line in body.splitlines() if line.startswith("+")]
            kernels = root / "toymodel" / "kernels.py"
            source = kernels.read_text(encoding="utf-8")
            assert source.count("\n".join(old)) == 1
            kernels.write_text(source.replace("\n".join(old), "\n".join(new)), encoding="utf-8")
        else:
            assert last == body + "\n"
