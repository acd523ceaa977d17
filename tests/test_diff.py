"""`knobs diff` on temporary git repositories: golden text and markdown, exit codes."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from knobregistry.diff import KnobDiff, KnobState, compare
from knobregistry.report.diff import render_diff_text
from tests.conftest import GIT_ENV, run_knobs
from tests.sample_project import append, edit, project

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
        "1 retriaged, 1 registered for the first time (registry: `registry.yaml`).\n\n"
        "| change | knob | default | triage | where |\n"
        "| --- | --- | --- | --- | --- |\n"
        '| retriaged | `PRIMUS_FP8` | on ("0" turns it off) | untriaged → reproducible '
        "| `pkg/model.py:6` |\n"
        "\n"
        "**1 knob registered for the first time** (not registered at `main~1`): 1 reproducible.\n"
        "\n"
        "<details><summary>Their names</summary>\n"
        "\n"
        "- reproducible: `PRIMUS_NEW_TRITON`\n"
        "\n"
        "</details>\n"
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


FIRST_ADOPTION = """\
Knob changes from main~1 to HEAD (registry.yaml): 4 registered for the first time.

  4 knobs registered for the first time (not registered at main~1): 1 breaks-bitwise, 1 exempt, 1 reproducible, 1 untriaged.
    breaks-bitwise: PRIMUS_HC_TRITON
    exempt: PRIMUS_BLOCK
    reproducible: PRIMUS_ROPE_TRITON
    untriaged: PRIMUS_FP8
"""  # noqa: E501

FIRST_ADOPTION_MARKDOWN = """\
### Knob changes from `main~1` to `HEAD`

4 registered for the first time (registry: `registry.yaml`).

**4 knobs registered for the first time** (not registered at `main~1`): 1 breaks-bitwise, 1 exempt, 1 reproducible, 1 untriaged.

<details><summary>Their names</summary>

- breaks-bitwise: `PRIMUS_HC_TRITON`
- exempt: `PRIMUS_BLOCK`
- reproducible: `PRIMUS_ROPE_TRITON`
- untriaged: `PRIMUS_FP8`

</details>
"""  # noqa: E501


UNTRACKED = (
    "knobs diff: error: registry.yaml does not exist at HEAD: it is in the working tree but "
    "not committed, and knobs diff reads both revisions from git, never the working tree. "
    "Commit it (git add registry.yaml && git commit), then run knobs diff again.\n"
)

UNCOMMITTED = (
    "knobs diff: note: registry.yaml has uncommitted changes, which this diff leaves out: "
    "knobs diff reads the registry of each revision from git. Commit them (git add "
    "registry.yaml && git commit) to see them here.\n"
)


def code_only(tmp_path: Path) -> tuple[Path, str]:
    """The sample project committed without its registry, and the registry's text."""
    root = project(tmp_path)
    registry = (root / "registry.yaml").read_text(encoding="utf-8")
    (root / "registry.yaml").unlink()
    git(root, "init", "-q", "-b", "main")
    commit(root, "code only")
    return root, registry


def test_a_first_adoption_is_one_group_not_a_row_per_knob(tmp_path: Path) -> None:
    """The base has no registry: it is scanned with HEAD's scope, and every knob's only
    change is its first registration."""
    root, registry = code_only(tmp_path)
    (root / "registry.yaml").write_text(registry, encoding="utf-8")
    commit(root, "adopt the registry")
    assert diff(root, "main~1") == (0, FIRST_ADOPTION, "")
    assert diff(root, "main~1", "--format", "markdown") == (0, FIRST_ADOPTION_MARKDOWN, "")


def test_an_uncommitted_registry_says_to_commit_it(tmp_path: Path) -> None:
    root, registry = code_only(tmp_path)
    (root / "registry.yaml").write_text(registry, encoding="utf-8")  # knobs init wrote it
    assert diff(root, "main") == (2, "", UNTRACKED)
    git(root, "add", "registry.yaml")  # staged is not committed either
    assert diff(root, "main")[2].startswith(
        "knobs diff: error: registry.yaml does not exist at HEAD: it is in the working tree but "
        "not committed"
    )
    commit(root, "adopt the registry")
    assert diff(root, "main~1") == (0, FIRST_ADOPTION, "")


def test_a_registry_in_a_subfolder_named_from_there_is_committed_by_that_name(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    project(root / "sub")
    (root / "sub" / "registry.yaml").rename(root / "kept.yaml")
    git(root, "init", "-q", "-b", "main")
    commit(root, "code only")
    (root / "kept.yaml").rename(root / "sub" / "my registry.yaml")
    code, out, err = diff(root / "sub", "main", "--registry", "my registry.yaml")
    assert (code, out) == (2, "")
    assert err == (
        "knobs diff: error: sub/my registry.yaml does not exist at HEAD: it is in the working "
        "tree but not committed, and knobs diff reads both revisions from git, never the "
        "working tree. Commit it (git add 'my registry.yaml' && git commit), then run knobs "
        "diff again.\n"
    )


def test_uncommitted_registry_changes_are_named_on_standard_error(tmp_path: Path) -> None:
    root = repository(tmp_path)
    registry = root / "registry.yaml"
    text = registry.read_text(encoding="utf-8")
    registry.write_text(text.replace("triage: untriaged", "triage: reproducible"), "utf-8")
    assert diff(root, "main~1") == (1, TEXT, UNCOMMITTED)
    assert diff(root, "main~1", "main") == (1, TEXT.replace("to HEAD", "to main"), UNCOMMITTED)
    # HEAD is not one of the two revisions: its registry's changes are not in question.
    assert diff(root, "main~1", "main~1") == (
        0,
        "Knob changes from main~1 to main~1 (registry.yaml): none.\n",
        "",
    )
    registry.write_text(text, encoding="utf-8")
    assert diff(root, "main~1") == (1, TEXT, "")


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
    assert diff(root, "main~1") == (2, "", UNTRACKED)
    commit(root, "restore the registry")
    # A revision other than the working tree's: committing would not help, so no hint.
    assert diff(root, "main~2", "main~1") == (
        2,
        "",
        "knobs diff: error: registry.yaml does not exist at main~1.\n",
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
        (state(), state(files=("a.py", "pkg/model.py")), ("read in more files",), "one more file"),
        (state(files=("a.py", "b.py", "pkg/model.py")), state(), ("read in fewer files",), "2 "),
        (state(files=("a.py", "b.py")), state(files=("a.py", "c.py")), ("moved",), "a.py, c.py"),
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


WIDER = """\
Knob changes from main~1 to HEAD (registry.yaml): 2 read in more files.

  change                 knob                default                triage        where
  read in 2 more files   PRIMUS_BLOCK        value "64"             exempt        pkg/model.py, now also pkg/block.py, pkg/size.py
  read in one more file  PRIMUS_ROPE_TRITON  on ("0" turns it off)  reproducible  pkg/model.py, now also pkg/rope.py
"""  # noqa: E501

NARROWER_MARKDOWN = """\
### Knob changes from `HEAD` to `main~1`

2 read in fewer files (registry: `registry.yaml`).

| change | knob | default | triage | where |
| --- | --- | --- | --- | --- |
| read in 2 fewer files | `PRIMUS_BLOCK` | value "64" | exempt | `pkg/model.py, no longer pkg/block.py, pkg/size.py` |
| read in one fewer file | `PRIMUS_ROPE_TRITON` | on ("0" turns it off) | reproducible | `pkg/model.py, no longer pkg/rope.py` |
"""  # noqa: E501


def test_a_knob_read_in_more_files_has_not_moved(tmp_path: Path) -> None:
    root = project(tmp_path)
    git(root, "init", "-q", "-b", "main")
    commit(root, "base")
    (root / "pkg/rope.py").write_text(f"from pkg.envs import env_flag\n\n{ROPE}", encoding="utf-8")
    block = 'import os\n\nBLOCK = int(os.environ.get("PRIMUS_BLOCK", "64"))\n'
    (root / "pkg/block.py").write_text(block, encoding="utf-8")
    (root / "pkg/size.py").write_text(block, encoding="utf-8")
    commit(root, "read in more files")
    assert diff(root, "main~1") == (0, WIDER, "")
    assert diff(root, "HEAD", "main~1", "--format", "markdown") == (0, NARROWER_MARKDOWN, "")


def test_many_first_registrations_wrap_their_names(tmp_path: Path) -> None:
    names = [f"PRIMUS_FUSED_KERNEL_{i:02}_TRITON" for i in range(30)]
    base = state(triage="not registered", default_on=True, off_value="0", default="1")
    rows = compare(
        {n: replace(base, name=n) for n in names},
        {n: replace(base, name=n, triage="untriaged") for n in names},
    )
    out = render_diff_text(
        KnobDiff(base="main", head="HEAD", registry="r.yaml", rows=tuple(rows)), 100
    )
    lines = out.splitlines()
    assert lines[:3] == [
        "Knob changes from main to HEAD (r.yaml): 30 registered for the first time.",
        "",
        "  30 knobs registered for the first time (not registered at main): 30 untriaged.",
    ]
    assert lines[3].startswith("    untriaged: PRIMUS_FUSED_KERNEL_00_TRITON, ")
    assert all(line.startswith("      PRIMUS_FUSED_KERNEL_") for line in lines[4:])
    assert max(len(line) for line in lines[3:]) <= 100
    listed = " ".join(lines[3:]).removeprefix("    untriaged: ").replace(",", " ").split()
    assert listed == names
