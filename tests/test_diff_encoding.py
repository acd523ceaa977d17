"""`knobs diff` reads each revision's registry and pyproject.toml as UTF-8 text, as every
command reads them from the working tree, and refuses one that is not in one line, exit 2
(row 12 of issue 41: a registry.yaml that was not UTF-8 at a revision ended in a
traceback)."""

from __future__ import annotations

from pathlib import Path

from tests.sample_project import project
from tests.test_diff import commit, diff, git


def _repository(tmp_path: Path, base: dict[str, bytes]) -> Path:
    root = project(tmp_path)
    git(root, "init", "-q", "-b", "main")
    saved = {name: (root / name).read_bytes() if (root / name).exists() else None for name in base}
    for name, data in base.items():
        (root / name).write_bytes(data)
    commit(root, "base")
    for name, before in saved.items():
        if before is None:
            (root / name).unlink()
        else:
            (root / name).write_bytes(before)
    commit(root, "head")
    return root


def test_a_registry_not_utf8_at_a_revision_is_one_line(tmp_path: Path) -> None:
    good = (project(tmp_path / "p") / "registry.yaml").read_bytes()
    root = _repository(tmp_path / "r", {"registry.yaml": b"# caf\xe9\n" + good})
    assert diff(root, "main~1") == (
        2,
        "",
        "main~1:registry.yaml:1:6: the file is not UTF-8 text; save it as UTF-8.\n",
    )


def test_a_registry_in_utf16_at_a_revision_is_one_line(tmp_path: Path) -> None:
    good = (project(tmp_path / "p") / "registry.yaml").read_text(encoding="utf-8")
    root = _repository(tmp_path / "r", {"registry.yaml": good.encode("utf-16")})
    code, out, err = diff(root, "main~1")
    assert (code, out) == (2, "")
    assert err == "main~1:registry.yaml:1:1: the file is not UTF-8 text; save it as UTF-8.\n"


def test_a_pyproject_not_utf8_at_a_revision_is_one_line(tmp_path: Path) -> None:
    root = _repository(tmp_path, {"pyproject.toml": b"[tool.knobs]\n# caf\xe9\n"})
    code, out, err = diff(root, "main~1")
    assert (code, out) == (2, "")
    assert err == (
        "knobs diff: error: pyproject.toml at main~1 is not UTF-8 text (line 2); save it as "
        "UTF-8.\n"
    )
