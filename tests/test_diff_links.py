"""`knobs diff` with a registry that is a symbolic link: each revision's link, followed in
that revision's tree (real git repositories)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.sample_project import edit, project
from tests.test_diff import commit, diff, git

FP8 = "    triage: untriaged\n"
FP8_TRIAGED = "    triage: reproducible\n"

# As docs/diff.md shows it.
LOOP = "knobs diff: error: registry.yaml at main~1 is a symbolic link that leads round in a loop.\n"

RETRIAGED = """\
Knob changes from main~1 to HEAD (registry.yaml): 1 retriaged.

  change     knob        default                triage                     where
  retriaged  PRIMUS_FP8  off ("1" turns it on)  untriaged -> reproducible  pkg/model.py:7
"""


def relink(link: Path, target: str) -> None:
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target)


def move_registry(root: Path, name: str) -> Path:
    """The registry's text moved to `registries/NAME`, registry.yaml linked to it."""
    target = root / "registries" / name
    target.parent.mkdir(exist_ok=True)
    (root / "registry.yaml").rename(target)
    relink(root / "registry.yaml", f"registries/{name}")
    return target


def test_a_registry_linked_at_head_is_read_as_a_file_at_the_base(tmp_path: Path) -> None:
    root = project(tmp_path)
    git(root, "init", "-q", "-b", "main")
    commit(root, "the registry, a file")
    edit(move_registry(root, "v2.yaml"), FP8, FP8_TRIAGED)
    commit(root, "the registry moved, and linked")
    assert diff(root, "main~1") == (0, RETRIAGED, "")


def test_each_revision_follows_its_own_link(tmp_path: Path) -> None:
    """The working tree's link names v2.yaml, which the base does not hold: the base is
    read through its own link, to v1.yaml."""
    root = project(tmp_path)
    move_registry(root, "v1.yaml")
    git(root, "init", "-q", "-b", "main")
    commit(root, "the registry, linked to v1")
    v1 = root / "registries" / "v1.yaml"
    v2 = root / "registries" / "v2.yaml"
    v1.rename(v2)
    edit(v2, FP8, FP8_TRIAGED)
    relink(root / "registry.yaml", "registries/v2.yaml")
    commit(root, "linked to v2")
    assert diff(root, "main~1") == (0, RETRIAGED, "")


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("{outside}", "a symbolic link to {outside}, outside the repository; knobs diff reads "
         "each revision from git, so link to a file in the repository"),
        ("../elsewhere.yaml", "a symbolic link to ../elsewhere.yaml, outside the repository; "
         "knobs diff reads each revision from git, so link to a file in the repository"),
        ("registries/gone.yaml", "a symbolic link to a path that does not exist in that "
         "revision"),
        ("registries", "a folder, not a file"),
    ],
    ids=["absolute", "relative", "dangling", "folder"],
)  # fmt: skip
def test_a_link_that_cannot_be_followed_in_a_revision_is_refused(
    tmp_path: Path, target: str, problem: str
) -> None:
    root = project(tmp_path / "repo")
    outside = (tmp_path / "elsewhere.yaml").as_posix()
    (tmp_path / "elsewhere.yaml").write_text(
        (root / "registry.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    kept = (root / "registry.yaml").read_text(encoding="utf-8")
    (root / "registries").mkdir()
    (root / "registries" / "kept.yaml").write_text(kept, encoding="utf-8")
    relink(root / "registry.yaml", target.format(outside=outside))
    git(root, "init", "-q", "-b", "main")
    commit(root, "a link that leads nowhere in git")
    (root / "registry.yaml").unlink()
    (root / "registry.yaml").write_text(kept, encoding="utf-8")
    commit(root, "the registry, a file")
    message = f"registry.yaml at main~1 is {problem.format(outside=outside)}."
    assert diff(root, "main~1") == (2, "", f"knobs diff: error: {message}\n")


def test_the_refusal_in_the_guide_is_real_output(tmp_path: Path) -> None:
    root = project(tmp_path)
    kept = (root / "registry.yaml").read_text(encoding="utf-8")
    relink(root / "registry.yaml", "loop.yaml")
    (root / "loop.yaml").symlink_to("registry.yaml")
    git(root, "init", "-q", "-b", "main")
    commit(root, "a registry link that loops")
    (root / "registry.yaml").unlink()
    (root / "registry.yaml").write_text(kept, encoding="utf-8")
    commit(root, "the registry, a file")
    assert diff(root, "main~1") == (2, "", LOOP)
    guide = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")
    assert f"    {LOOP}" in guide
