"""`knobs diff` on temporary git repositories: golden text and markdown, exit codes."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from knobregistry.diff import KnobDiff, KnobState, compare, render_diff_text
from tests.conftest import run_knobs
from tests.sample_project import append, edit, project

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Knobs Test",
    "GIT_AUTHOR_EMAIL": "knobs@example.com",
    "GIT_COMMITTER_NAME": "Knobs Test",
    "GIT_COMMITTER_EMAIL": "knobs@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

ROPE = 'ROPE = env_flag("PRIMUS_ROPE_TRITON")\n'

TEXT = """\
Knob changes from main~1 to HEAD (registry.yaml): 1 added, 1 removed, 1 flipped, 1 moved.

  change   knob                default                       triage          where
  added    PRIMUS_NEW_TRITON   on ("0" turns it off)         not registered  pkg/model.py:7
  removed  PRIMUS_BLOCK        value "64"                    exempt          pkg/model.py:8
  flipped  PRIMUS_FP8          off -> on ("0" turns it off)  untriaged       pkg/model.py:6
  moved    PRIMUS_ROPE_TRITON  on ("0" turns it off)         reproducible    pkg/model.py -> pkg/rope.py

error: PRIMUS_NEW_TRITON is new, on by default and not registered (pkg/model.py:7): register and triage it in registry.yaml before merging; `knobs check` prints the entry to paste.
error: PRIMUS_FP8 is now on by default and untriaged (pkg/model.py:6): triage it in registry.yaml before merging.
"""  # noqa: E501

MARKDOWN = """\
### Knob changes from `main~1` to `main`

1 added, 1 removed, 1 flipped, 1 moved (registry: `registry.yaml`).

| change | knob | default | triage | where |
| --- | --- | --- | --- | --- |
| added | `PRIMUS_NEW_TRITON` | on ("0" turns it off) | **not registered** | `pkg/model.py:7` |
| removed | `PRIMUS_BLOCK` | value "64" | exempt | `pkg/model.py:8` |
| flipped | `PRIMUS_FP8` | off → on ("0" turns it off) | **untriaged** | `pkg/model.py:6` |
| moved | `PRIMUS_ROPE_TRITON` | on ("0" turns it off) | reproducible | `pkg/model.py → pkg/rope.py` |

**Blocks the merge: 2 knobs on by default and not triaged.**

- `PRIMUS_NEW_TRITON` is new, on by default and not registered (`pkg/model.py:7`).
- `PRIMUS_FP8` is now on by default and untriaged (`pkg/model.py:6`).

Triage each in `registry.yaml` before merging; for a knob not registered yet, `knobs check` prints the entry to paste.
"""  # noqa: E501

TRIAGED = """\
    default: "1"
    default_on: true
    triage: reproducible
"""


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=root,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def diff(root: Path, *args: str) -> tuple[int, str, str]:
    # Wide enough for every row on one line: tests/test_table_widths.py lays them out at
    # 80 and 120 columns.
    done = run_knobs("diff", *args, cwd=root, env={"COLUMNS": "200"})
    return done.returncode, done.stdout, done.stderr


def repository(tmp_path: Path) -> Path:
    """Two commits: the checks.md example, then a change that adds, removes, flips and moves."""
    root = project(tmp_path)
    git(root, "init", "-q", "-b", "main")
    commit(root, "base")
    model = root / "pkg/model.py"
    edit(model, ROPE, "")
    edit(model, 'BLOCK = int(os.environ.get("PRIMUS_BLOCK", "64"))\n', "")
    edit(model, '"PRIMUS_FP8", "0") == "1"', '"PRIMUS_FP8", "1") != "0"')
    append(root)
    (root / "pkg/rope.py").write_text(f"from pkg.envs import env_flag\n\n{ROPE}", encoding="utf-8")
    commit(root, "head")
    return root


def test_text(tmp_path: Path) -> None:
    root = repository(tmp_path)
    assert diff(root, "main~1") == (1, TEXT, "")


def test_markdown(tmp_path: Path) -> None:
    root = repository(tmp_path)
    assert diff(root, "main~1", "main", "--format", "markdown") == (1, MARKDOWN, "")


def triage_both(root: Path) -> None:
    """A third commit: PRIMUS_NEW_TRITON registered and PRIMUS_FP8 triaged, both reproducible."""
    registry = root / "registry.yaml"
    text = registry.read_text(encoding="utf-8")
    text = text.replace(
        '  PRIMUS_FP8:\n    default: "0"\n    default_on: false\n    triage: untriaged\n',
        "  PRIMUS_FP8:\n" + TRIAGED,
    )
    registry.write_text(text + "  PRIMUS_NEW_TRITON:\n" + TRIAGED, encoding="utf-8")
    commit(root, "triage")


def test_triaged_changes_pass(tmp_path: Path) -> None:
    root = repository(tmp_path)
    triage_both(root)
    code, out, err = diff(root, "main~2")
    assert (code, err) == (0, "")
    assert out == (
        "Knob changes from main~2 to HEAD (registry.yaml): 1 added, 1 removed, 1 flipped, "
        "1 moved.\n\n"
        "  change              knob                default                       triage"
        "                     where\n"
        '  added               PRIMUS_NEW_TRITON   on ("0" turns it off)         reproducible'
        "               pkg/model.py:7\n"
        '  removed             PRIMUS_BLOCK        value "64"                    exempt'
        "                     pkg/model.py:8\n"
        '  flipped, retriaged  PRIMUS_FP8          off -> on ("0" turns it off)  untriaged -> '
        "reproducible  pkg/model.py:6\n"
        '  moved               PRIMUS_ROPE_TRITON  on ("0" turns it off)         reproducible'
        "               pkg/model.py -> pkg/rope.py\n"
    )
    assert "error:" not in out
    code, out, _ = diff(root, "main~1", "--format", "markdown")
    assert code == 0
    assert out == (
        "### Knob changes from `main~1` to `HEAD`\n\n"
        "2 retriaged (registry: `registry.yaml`).\n\n"
        "| change | knob | default | triage | where |\n"
        "| --- | --- | --- | --- | --- |\n"
        '| retriaged | `PRIMUS_FP8` | on ("0" turns it off) | untriaged → reproducible '
        "| `pkg/model.py:6` |\n"
        '| retriaged | `PRIMUS_NEW_TRITON` | on ("0" turns it off) | not registered → reproducible '
        "| `pkg/model.py:7` |\n"
    )


def test_no_change(tmp_path: Path) -> None:
    root = repository(tmp_path)
    assert diff(root, "HEAD", "HEAD") == (
        0,
        "Knob changes from HEAD to HEAD (registry.yaml): none.\n",
        "",
    )
    assert diff(root, "main", "--format", "markdown") == (
        0,
        "### Knob changes from `main` to `HEAD`\n\nNo knob is added, removed, flipped or moved.\n",
        "",
    )


def test_reads_git_objects_and_leaves_the_working_tree_alone(tmp_path: Path) -> None:
    root = repository(tmp_path)
    model = root / "pkg/model.py"
    dirty = model.read_text(encoding="utf-8") + 'X = os.environ.get("PRIMUS_DIRTY", "1") != "0"\n'
    model.write_text(dirty, encoding="utf-8")
    (root / "pkg/untracked.py").write_text("import os\nos.getenv('PRIMUS_U')\n", encoding="utf-8")
    status = git(root, "status", "--porcelain")
    head = git(root, "rev-parse", "HEAD")
    assert diff(root, "main~1") == (1, TEXT, "")
    assert git(root, "status", "--porcelain") == status
    assert git(root, "rev-parse", "HEAD") == head
    assert model.read_text(encoding="utf-8") == dirty


def test_a_registry_in_a_subfolder(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    project(root / "sub")
    git(root, "init", "-q", "-b", "main")
    commit(root, "base")
    append(root / "sub")
    commit(root, "head")
    code, out, _ = diff(root, "main~1", "--registry", "sub/registry.yaml")
    assert code == 1
    assert out.splitlines()[0] == ("Knob changes from main~1 to HEAD (sub/registry.yaml): 1 added.")
    assert out.splitlines()[3].split() == [
        "added",
        "PRIMUS_NEW_TRITON",
        "on",
        '("0"',
        "turns",
        "it",
        "off)",
        "not",
        "registered",
        "sub/pkg/model.py:9",
    ]


def test_a_base_without_registry_uses_the_head_scope(tmp_path: Path) -> None:
    root = project(tmp_path)
    registry = (root / "registry.yaml").read_text(encoding="utf-8")
    (root / "registry.yaml").unlink()
    git(root, "init", "-q", "-b", "main")
    commit(root, "code only")
    (root / "registry.yaml").write_text(registry, encoding="utf-8")
    commit(root, "adopt the registry")
    code, out, _ = diff(root, "main~1")
    assert code == 0
    assert out.splitlines()[0] == ("Knob changes from main~1 to HEAD (registry.yaml): 4 retriaged.")
    assert "not registered -> breaks-bitwise" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope",), "knobs diff: error: 'nope' names no commit in this repository.\n"),
        (("--", "-x"), "knobs diff: error: '-x' is not a revision.\n"),
    ],
)
def test_bad_revisions_are_usage_errors(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    assert diff(repository(tmp_path), *args) == (2, "", message)


def test_a_registry_missing_at_head(tmp_path: Path) -> None:
    root = repository(tmp_path)
    (root / "registry.yaml").rename(root / "kept.yaml")
    commit(root, "drop the registry")
    (root / "kept.yaml").rename(root / "registry.yaml")
    assert diff(root, "main~1") == (
        2,
        "",
        "knobs diff: error: registry.yaml does not exist at HEAD.\n",
    )


def test_outside_a_repository(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, out, err = diff(root, "main")
    assert (code, out) == (2, "")
    assert err.startswith(f"knobs diff: error: {root.as_posix()} is not inside a git repository")


def test_a_registry_that_does_not_load_at_a_revision(tmp_path: Path) -> None:
    root = repository(tmp_path)
    (root / "registry.yaml").write_text("version: 2\n", encoding="utf-8")
    commit(root, "break it")
    code, out, err = diff(root, "main~1")
    assert (code, out) == (2, "")
    assert err == "HEAD:registry.yaml:1:1: version: expected 1, got the integer 2\n"


def state(**changes: object) -> KnobState:
    base = KnobState(
        name="PRIMUS_BLOCK",
        default_on=None,
        default="64",
        off_value=None,
        on_value=None,
        files=("pkg/model.py",),
        first="pkg/model.py:8",
        triage="exempt",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("old", "new", "changes", "default"),
    [
        (state(), state(default="128"), ("default changed",), '"64" -> "128" (value)'),
        (state(), state(default_on=True, off_value="0"), ("flipped",), "value -> on"),
        (state(), state(files=("a.py",), triage="new"), ("moved", "retriaged"), 'value "64"'),
        (state(), state(), (), ""),
    ],
)  # fmt: skip
def test_compare_names_every_change(
    old: KnobState, new: KnobState, changes: tuple[str, ...], default: str
) -> None:
    rows = compare({"PRIMUS_BLOCK": old}, {"PRIMUS_BLOCK": new})
    assert [c.value for row in rows for c in row.changes] == list(changes)
    if rows:
        diff = KnobDiff(base="a", head="b", registry="registry.yaml", rows=tuple(rows))
        assert default in render_diff_text(diff, 200)
        assert not diff.blocking


def test_a_new_disable_knob_whose_feature_is_on_blocks_and_so_does_an_undecided_one(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    git(root, "init", "-q", "-b", "main")
    commit(root, "base")
    append(root, 'ADAM_OFF = os.environ.get("PRIMUS_DISABLE_FUSED_ADAM", "0") == "1"\n')
    append(root, "from toolkit import str2bool\n")
    append(root, 'LION = str2bool(os.environ.get("PRIMUS_FUSED_LION", "1"))\n')
    append(root, 'RANK = int(os.environ.get("RANK", "0"))\n')
    commit(root, "head")
    assert diff(root, "main~1") == (
        1,
        "Knob changes from main~1 to HEAD (registry.yaml): 3 added.\n\n"
        "  change  knob                       default                                       "
        "triage          where\n"
        '  added   PRIMUS_DISABLE_FUSED_ADAM  off, so its feature is on ("1" turns it off)  '
        "not registered  pkg/model.py:9\n"
        "  added   PRIMUS_FUSED_LION          undecided                                     "
        "not registered  pkg/model.py:11\n"
        "  added   RANK                       launch fact                                   "
        "not registered  pkg/model.py:12\n"
        "\n"
        "error: PRIMUS_DISABLE_FUSED_ADAM is new, on by default and not registered "
        "(pkg/model.py:9): register and triage it in registry.yaml before merging; `knobs check` "
        "prints the entry to paste.\n"
        "error: PRIMUS_FUSED_LION is new, undecided by the scan and not registered "
        "(pkg/model.py:11): register and triage it in registry.yaml before merging; `knobs "
        "check` prints the entry to paste.\n",
        "",
    )


def test_each_revision_is_scanned_with_its_own_pyproject_settings(tmp_path: Path) -> None:
    root = project(tmp_path)
    git(root, "init", "-q", "-b", "main")
    commit(root, "base")
    append(root, 'ELASTIC = os.environ.get("MYLAUNCHER_ELASTIC", "1") != "0"\n')
    commit(root, "a launcher variable read as a switch")
    code, out, _ = diff(root, "main~1")
    assert code == 1
    assert "error: MYLAUNCHER_ELASTIC is new, on by default and not registered" in out
    (root / "pyproject.toml").write_text(
        '[tool.knobs]\nlaunch_facts = ["MYLAUNCHER_*"]\n', encoding="utf-8"
    )
    assert diff(root, "main~1")[0] == 1  # the working tree's pyproject.toml is not HEAD's
    commit(root, "the launcher's variables are launch facts")
    code, out, _ = diff(root, "main~2")
    assert code == 0
    assert "  added   MYLAUNCHER_ELASTIC  launch fact  not registered  pkg/model.py:9\n" in out
