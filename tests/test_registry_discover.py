"""Which registry a command uses when none is named: --registry, pyproject, nearest parent."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry.registry import RegistryError, find_registry


def _touch(path: Path, text: str = "version: 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_explicit_path_wins(tmp_path: Path) -> None:
    _touch(tmp_path / "registry.yaml")
    other = _touch(tmp_path / "conf" / "knobs.yaml")
    assert find_registry(other, start=tmp_path) == other


def test_explicit_path_must_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(RegistryError) as caught:
        find_registry(missing)
    assert str(caught.value) == (
        f"{missing.as_posix()}: no registry file here; check the --registry path."
    )


def test_current_folder(tmp_path: Path) -> None:
    registry = _touch(tmp_path / "registry.yaml")
    assert find_registry(start=tmp_path) == registry


def test_nearest_parent_wins(tmp_path: Path) -> None:
    _touch(tmp_path / "registry.yaml")
    nearer = _touch(tmp_path / "pkg" / "registry.yaml")
    deep = tmp_path / "pkg" / "sub" / "deeper"
    deep.mkdir(parents=True)
    assert find_registry(start=deep) == nearer


def test_defaults_to_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = _touch(tmp_path / "registry.yaml")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    assert find_registry() == registry


def test_pyproject_names_the_registry(tmp_path: Path) -> None:
    _touch(tmp_path / "registry.yaml")  # the pyproject setting wins in the same folder
    named = _touch(tmp_path / "config" / "knobs.yaml")
    _touch(tmp_path / "pyproject.toml", '[tool.knobs]\nregistry = "config/knobs.yaml"\n')
    (tmp_path / "src").mkdir()
    assert find_registry(start=tmp_path / "src") == tmp_path / "config" / "knobs.yaml"
    assert named.is_file()


def test_pyproject_without_the_setting_is_passed_over(tmp_path: Path) -> None:
    registry = _touch(tmp_path / "registry.yaml")
    _touch(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n[tool.knobs]\n')
    assert find_registry(start=tmp_path / "pkg") == registry


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        pytest.param(
            'registry = "knobs.yaml"',
            "registry names 'knobs.yaml', which is not a file.",
            id="naming-a-missing-file",
        ),
        pytest.param(
            "registry = 3",
            'registry must be a path, such as "registry.yaml".',
            id="with-a-wrong-type",
        ),
    ],
)
def test_pyproject_with_a_setting_that_names_no_registry(
    tmp_path: Path, setting: str, problem: str
) -> None:
    pyproject = _touch(tmp_path / "pyproject.toml", f"[tool.knobs]\n{setting}\n")
    with pytest.raises(RegistryError) as caught:
        find_registry(start=tmp_path)
    assert str(caught.value) == f"{pyproject.as_posix()}: [tool.knobs] {problem}"


def test_invalid_pyproject(tmp_path: Path) -> None:
    _touch(tmp_path / "pyproject.toml", "[tool.knobs\n")
    with pytest.raises(RegistryError) as caught:
        find_registry(start=tmp_path)
    assert "cannot read it to look for [tool.knobs]" in str(caught.value)


def test_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    _touch(tmp_path / "registry.yaml")  # outside the repository: not used
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    with pytest.raises(RegistryError) as caught:
        find_registry(start=repo / "src")
    assert str(caught.value) == (
        f"{(repo / 'src').as_posix()}: no registry.yaml here or in a parent folder up to the "
        "repository root; create one with `knobs init`, or name one with --registry PATH."
    )


def test_registry_at_the_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    registry = _touch(repo / "registry.yaml")
    (repo / "a" / "b").mkdir(parents=True)
    assert find_registry(start=repo / "a" / "b") == registry
