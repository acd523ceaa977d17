"""Symbolic links met while walking a folder (row 11 of issue 41).

Linked folders are not followed; a linked file is read only when the file it points to
lies inside the folders being scanned (where it is scanned at its own path too). A link to a
file outside them is not read: it is an error entry that says so (and `knobs check` fails on
it, KNB007), so that no value outside the tree (a secret in ~/.aws) reaches `--format json`.
A file named on the command line is read wherever its link points: it was asked for.
"""

from __future__ import annotations

import json
from pathlib import Path

from scanner import scan
from tests.conftest import run_knobs, write_tree

SECRET = 'import os\nTOKEN = os.environ.get("APP_TOKEN", "s3cr3t-value")\n'


def _tree(tmp_path: Path) -> Path:
    write_tree(tmp_path / "outside", {"secret.py": SECRET})
    root = write_tree(
        tmp_path / "project",
        {
            "src/model.py": 'import os\nF = os.environ.get("APP_FUSED", "1") != "0"\n',
            "src/real/inner.py": 'import os\nI = os.environ.get("APP_INNER", "1") != "0"\n',
        },
    )
    (root / "src" / "leak.py").symlink_to(tmp_path / "outside" / "secret.py")
    (root / "src" / "inner_link.py").symlink_to(root / "src" / "real" / "inner.py")
    return root


OUTSIDE = (
    "A symbolic link to a file outside the folders scanned ({target}): not read, as linked "
    "folders are not followed; name the file to scan it, or add the link to scan.exclude."
)


def test_a_link_to_a_file_outside_the_tree_is_not_read(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    result = scan([root / "src"], root=root)
    names = sorted(k.name for k in result.knobs)
    assert names == ["APP_FUSED", "APP_INNER"]
    target = (tmp_path / "outside" / "secret.py").as_posix()
    assert [(e.path, e.message) for e in result.errors] == [
        ("src/leak.py", OUTSIDE.format(target=target))
    ]
    inner = next(k for k in result.knobs if k.name == "APP_INNER")
    assert sorted(s.path for s in inner.sites) == ["src/inner_link.py", "src/real/inner.py"]


def test_its_values_never_reach_the_json(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    done = run_knobs("scan", "--format", "json", "src", cwd=root)
    assert "s3cr3t" not in done.stdout and "APP_TOKEN" not in done.stdout
    errors = json.loads(done.stdout)["errors"]
    assert [e["path"] for e in errors] == ["src/leak.py"]


def test_a_file_named_on_the_command_line_is_read(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    result = scan([root / "src" / "leak.py"], root=root)
    assert [k.name for k in result.knobs] == ["APP_TOKEN"]
    assert result.errors == ()


def test_a_link_without_an_extension_pointing_outside_is_not_opened(tmp_path: Path) -> None:
    """A file the include globs do not name is a shell script only by its first line: a link
    outside the tree is not opened to look."""
    root = _tree(tmp_path)
    write_tree(tmp_path / "outside", {"run": "#!/bin/sh\necho ${APP_SECRET_SH:-x}\n"})
    (root / "src" / "run").symlink_to(tmp_path / "outside" / "run")
    result = scan([root / "src"], root=root)
    assert "APP_SECRET_SH" not in {k.name for k in result.knobs}
    assert [e.path for e in result.errors] == ["src/leak.py"]
