"""`knobs diff` names the knobs whose triaged code changed between two revisions: on a git
repository of the example, golden text and Markdown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import REPO, run_knobs
from tests.test_diff import commit, git

ROPE_LINE = "    tl.store(Y + lo, x1 * cos - x2 * sin, mask=mask)\n"
EDITED = ROPE_LINE.replace("x2 * sin", "sin * x2")

TEXT = """\
Knob changes from HEAD~1 to HEAD (registry.yaml): 1 with changed code.

  change        knob             default                triage        where
  code changed  TOY_ROPE_TRITON  on ("0" turns it off)  reproducible  toymodel/kernels.py:54

TOY_ROPE_TRITON: _rope_kernel changed; its triage is now stale.
"""

MARKDOWN = """\
### Knob changes from `HEAD~1` to `HEAD`

1 with changed code (registry: `registry.yaml`).

| change | knob | default | triage | where |
| --- | --- | --- | --- | --- |
| code changed | `TOY_ROPE_TRITON` | on ("0" turns it off) | reproducible | `toymodel/kernels.py:54` |

**The code a triage was measured on changed:**

- `TOY_ROPE_TRITON`: `_rope_kernel` changed; its triage is now stale.
"""  # noqa: E501


def repository(tmp_path: Path) -> Path:
    """A git repository holding a copy of the example, committed; its example folder."""
    root = tmp_path / "repo"
    shutil.copytree(
        REPO / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__", ".knobs")
    )
    git(root, "init", "-q", "-b", "main")
    commit(root, "the example")
    return root / "examples"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def diff(cwd: Path, *args: str) -> tuple[int, str, str]:
    done = run_knobs("diff", "HEAD~1", *args, cwd=cwd, env={"COLUMNS": "200"})
    return done.returncode, done.stdout, done.stderr


def test_an_edited_kernel_names_the_knob_whose_triage_is_stale(tmp_path: Path) -> None:
    examples = repository(tmp_path)
    edit(examples / "toymodel/kernels.py", ROPE_LINE, EDITED)
    commit(examples, "rotate the other way round")
    assert diff(examples) == (0, TEXT, "")
    assert diff(examples, "--format", "markdown") == (0, MARKDOWN, "")


def test_a_comment_is_no_change(tmp_path: Path) -> None:
    examples = repository(tmp_path)
    edit(examples / "toymodel/kernels.py", ROPE_LINE, "    # rotate\n" + ROPE_LINE)
    commit(examples, "a comment")
    assert diff(examples) == (0, "Knob changes from HEAD~1 to HEAD (registry.yaml): none.\n", "")


def test_a_triage_recorded_in_the_same_change_is_named_as_such(tmp_path: Path) -> None:
    examples = repository(tmp_path)
    edit(examples / "toymodel/kernels.py", ROPE_LINE, EDITED)
    shown = run_knobs("fingerprint", "TOY_ROPE_TRITON", "--format", "json", cwd=examples)
    assert shown.returncode == 1, shown.stderr  # its record keeps the old code
    (units,) = [k["units"] for k in json.loads(shown.stdout)["knobs"]]
    new = next(u["digest"] for u in units if u["name"] == "_rope_kernel")
    registry = examples / "registry.yaml"
    old = f"_rope_kernel: {_recorded(registry)}"
    edit(registry, old, f"_rope_kernel: {new}")  # as `knobs triage --record` writes it
    commit(examples, "rotate the other way round, triaged")
    code, out, _ = diff(examples)
    assert code == 0
    assert out.endswith(
        "TOY_ROPE_TRITON: _rope_kernel changed, and it was triaged again on the new code.\n"
    )


def _recorded(registry: Path) -> str:
    line = next(
        line
        for line in registry.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("_rope_kernel: ")
    )
    return line.split(": ", 1)[1]
