"""`knobs triage --record` changes the registry; its generated docs follow, and say so,
so the next `knobs check` passes instead of failing on them (KNB204)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import run_knobs, write_tree

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
