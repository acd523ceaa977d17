"""`knobs init`'s copy of the schema (registry.schema.json): written only where there is none,
replaced only with --force, never through a symbolic link (row 2 of issue 41)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry.init.starter import SCHEMA_COPY
from knobregistry.registry.schema import schema_text
from tests.conftest import run_knobs

SHIPPED = schema_text()  # schema.json with the languages and compare modes filled in
HAND_EDITED = '{"$comment": "our own additions", "type": "object"}\n'


def _project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src/m.py").write_text('import os\nos.environ.get("A_KNOB")\n', encoding="utf-8")
    return root


def _init(root: Path, *args: str) -> tuple[int, str, str]:
    done = run_knobs("init", "src", *args, cwd=root)
    return done.returncode, done.stdout, done.stderr


KEPT_EDITED = (
    "knobs init: note: left registry.schema.json as it is: it differs from the schema this "
    "knobs ships (edited, or from another version); pass --force to replace it.\n"
)
KEPT_LINK = (
    "knobs init: note: left registry.schema.json as it is: it is a symbolic link, and knobs "
    "init writes no file through one; remove it, then run knobs init again, to get the schema "
    "this knobs ships.\n"
)
WROTE = "Wrote registry.schema.json: the registry's JSON schema"


def test_a_hand_edited_schema_is_kept_without_force(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / SCHEMA_COPY).write_text(HAND_EDITED, encoding="utf-8")
    code, out, err = _init(root)
    assert (code, err) == (0, KEPT_EDITED)
    assert WROTE not in out
    assert (root / SCHEMA_COPY).read_text(encoding="utf-8") == HAND_EDITED
    assert (root / "registry.yaml").is_file()


def test_force_replaces_a_hand_edited_schema(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / SCHEMA_COPY).write_text(HAND_EDITED, encoding="utf-8")
    code, out, err = _init(root, "--force")
    assert (code, err) == (0, "")
    assert WROTE in out
    assert (root / SCHEMA_COPY).read_text(encoding="utf-8") == SHIPPED


def test_the_same_schema_is_left_as_it_is(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / SCHEMA_COPY).write_text(SHIPPED, encoding="utf-8")
    before = (root / SCHEMA_COPY).stat()
    code, out, err = _init(root)
    assert (code, err) == (0, "")
    assert WROTE not in out
    after = (root / SCHEMA_COPY).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


@pytest.mark.parametrize("force", [(), ("--force",)], ids=["plain", "force"])
def test_a_symbolic_link_is_never_written_through(tmp_path: Path, force: tuple[str, ...]) -> None:
    root = _project(tmp_path / "project")
    victim = tmp_path / "victim.txt"
    victim.write_text("someone else's file\n", encoding="utf-8")
    (root / SCHEMA_COPY).symlink_to(victim)
    code, out, err = _init(root, *force)
    assert (code, err) == (0, KEPT_LINK)
    assert WROTE not in out
    assert victim.read_text(encoding="utf-8") == "someone else's file\n"
    assert (root / SCHEMA_COPY).is_symlink()


def test_a_dangling_link_is_not_followed_either(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    (root / SCHEMA_COPY).symlink_to(tmp_path / "made-through-the-link.json")
    code, _, err = _init(root, "--force")
    assert (code, err) == (0, KEPT_LINK)
    assert not (tmp_path / "made-through-the-link.json").exists()
