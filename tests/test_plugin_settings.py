"""The plugin's path settings: one naming no regular file stops pytest with a usage error.

Real pytest runs (subprocesses), with and without pytest-xdist: before, a folder was an
INTERNALERROR under `-n 2` and a traceback in every item without it.
"""

from __future__ import annotations

import os

import pytest

from tests.conftest import REPO
from tests.test_plugin import INI, PLUGIN, REGISTRY

pytest_plugins = ["pytester"]

BASELINE_FILE = "a baseline file, as `knobs check --write-baseline FILE` writes one"
WHY = {
    "folder": "it is a folder, not a regular file",
    "fifo": "it is a named pipe, not a regular file",
    "missing": "No such file or directory",
}


# As docs/ci.md shows it.
IN_PYPROJECT = (
    "ERROR: knobs_registry = configs: cannot read configs: it is a folder, not a regular file; "
    "set knobs_registry to the registry file (a path relative to pyproject.toml).\n"
)


def make_bad(pytester: pytest.Pytester, kind: str) -> str:
    """A path under the project that names a folder, a FIFO or nothing."""
    name = f"bad-{kind}"
    if kind == "folder":
        (pytester.path / name).mkdir()
    elif kind == "fifo":
        os.mkfifo(pytester.path / name)
    return name


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", registry=REGISTRY)
    pytester.mkpydir("pkg")
    pytester.makepyfile(test_ok="def test_ok():\n    assert True\n")
    return pytester


def assert_usage_error(result: pytest.RunResult, message: str) -> None:
    assert (result.ret, result.stdout.str(), result.stderr.str()) == (
        pytest.ExitCode.USAGE_ERROR,
        "",
        f"ERROR: {message}\n",
    )


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
@pytest.mark.parametrize("kind", ["folder", "fifo", "missing"])
def test_a_registry_setting_that_names_no_file_is_a_usage_error(
    project: pytest.Pytester, kind: str, workers: tuple[str, ...]
) -> None:
    if workers:
        pytest.importorskip("xdist")
    bad = make_bad(project, kind)
    project.makeini(INI.replace("registry.yaml", bad))
    result = project.runpytest_subprocess(*PLUGIN, *workers)
    assert_usage_error(
        result,
        f"knobs_registry = {bad}: cannot read {bad}: {WHY[kind]}; "
        "set knobs_registry to the registry file (a path relative to tox.ini).",
    )


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
@pytest.mark.parametrize("kind", ["folder", "fifo", "missing"])
def test_a_baseline_setting_that_names_no_file_is_a_usage_error(
    project: pytest.Pytester, kind: str, workers: tuple[str, ...]
) -> None:
    if workers:
        pytest.importorskip("xdist")
    bad = make_bad(project, kind)
    project.makeini(INI + f"knobs_baseline = {bad}\n")
    result = project.runpytest_subprocess(*PLUGIN, *workers)
    assert_usage_error(
        result,
        f"knobs_baseline = {bad}: cannot read {bad}: {WHY[kind]}; "
        f"set knobs_baseline to {BASELINE_FILE} (a path relative to tox.ini).",
    )


def test_a_setting_given_with_o_is_named_the_same_way(project: pytest.Pytester) -> None:
    """`-o knobs_registry=...` on the command line, no pytest configuration file: the
    path is relative to the root folder, and the message says so."""
    make_bad(project, "folder")
    result = project.runpytest_subprocess(
        *PLUGIN, "-p", "no:cacheprovider", "-o", "knobs_registry=bad-folder", "-n", "2"
    )
    assert_usage_error(
        result,
        "knobs_registry = bad-folder: cannot read bad-folder: it is a folder, not a regular "
        "file; set knobs_registry to the registry file (a path relative to the root folder "
        f"{project.path.as_posix()}).",
    )


def test_a_path_is_shown_from_where_pytest_runs(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makeini(INI + "knobs_baseline = gone.json\n")
    tests = project.mkdir("tests")
    monkeypatch.chdir(tests)
    result = project.runpytest_subprocess(*PLUGIN)
    assert_usage_error(
        result,
        "knobs_baseline = gone.json: cannot read ../gone.json: No such file or directory; "
        f"set knobs_baseline to {BASELINE_FILE} (a path relative to ../tox.ini).",
    )


def test_the_error_in_the_guide_is_real_output(project: pytest.Pytester) -> None:
    (project.path / "configs").mkdir()
    project.makepyprojecttoml('[tool.pytest.ini_options]\nknobs_registry = "configs"\n')
    result = project.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider")
    assert (result.ret, result.stderr.str()) == (
        pytest.ExitCode.USAGE_ERROR,
        IN_PYPROJECT,
    )
    assert IN_PYPROJECT in (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
