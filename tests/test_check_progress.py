"""`knobs check` with megatron-core installed: the config field list is computed once per
megatron-core version and then read from the cache (torch is not imported again), and
the slow steps show progress on a terminal, and nowhere else. Speed itself is measured by
benchmarks/check_bench.py, not asserted here."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import CLI_ENV, REPO, write_tree
from tests.processes import run_python
from tests.terminal import on_a_terminal

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("megatron") is None, reason="megatron-core is not installed"
)

REGISTRY = """
    version: 1
    scan: {paths: [src], policy: all}
    knobs:
      P_FUSED:
        default: "1"
        default_on: true
        triage: untriaged
    config:
      deterministic_mode:
        backend: megatron
        description: Deterministic kernels.
"""

# The check run in-process, then whether it imported torch (printed when it exits).
IMPORTED_TORCH = (
    "import atexit, runpy, sys; sys.argv = ['knobs', 'check']; "
    "atexit.register(lambda: print('torch' in sys.modules, file=sys.stderr)); "
    "runpy.run_module('knobregistry', run_name='__main__')"
)


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = write_tree(
        tmp_path / "proj",
        {
            "registry.yaml": REGISTRY,
            "src/a.py": 'import os\nos.environ.get("P_FUSED", "1") != "0"\n',
        },
    )
    # As on a terminal (TERM, COLUMNS): whether progress shows is up to the stream alone.
    environment = {
        **os.environ,
        "KNOBS_CACHE_DIR": str(tmp_path / "cache"),
        "TERM": "xterm",
        "COLUMNS": "120",
        "KNOBS_PROGRESS_SECONDS": CLI_ENV["KNOBS_PROGRESS_SECONDS"],  # piped: no count lines
    }
    return root, environment


def _check(root: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_python("-c", IMPORTED_TORCH, cwd=root, env={**environment, "PYTHONPATH": str(REPO)})


@pytest.fixture(scope="module")
def first_check(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, str], subprocess.CompletedProcess[str]]:
    """The project's first check, piped, in a cache of its own: it reads megatron-core's
    config classes (seconds). Shared by the tests that assert different things on it."""
    root, environment = _project(tmp_path_factory.mktemp("first"))
    return root, environment, _check(root, environment)


@pytest.mark.slow
def test_the_field_list_is_computed_once_per_version(
    first_check: tuple[Path, dict[str, str], subprocess.CompletedProcess[str]],
) -> None:
    root, environment, first = first_check
    assert (first.returncode, first.stderr) == (0, "True\n"), first.stdout
    version = metadata.version("megatron-core")
    (stored,) = (Path(environment["KNOBS_CACHE_DIR"]) / "config-fields").iterdir()
    assert stored.name.startswith(f"megatron-core-{version}-")
    second = _check(root, environment)
    assert (second.returncode, second.stdout, second.stderr) == (0, first.stdout, "False\n")
    stored.write_text("{not json", encoding="utf-8")  # a damaged cache is computed again
    third = _check(root, environment)
    assert (third.returncode, third.stdout, third.stderr) == (0, first.stdout, "True\n")


@pytest.mark.slow
def test_slow_steps_show_progress_on_a_terminal_only(
    tmp_path: Path, first_check: tuple[Path, dict[str, str], subprocess.CompletedProcess[str]]
) -> None:
    root, environment = _project(tmp_path)
    code, stdout, shown = on_a_terminal(
        [sys.executable, "-m", "knobregistry", "check"],
        root,
        environment,
    )
    assert code == 0
    assert stdout.startswith("No problems: 1 knob in 1 file")
    version = metadata.version("megatron-core")
    assert f"knobs: reading the config classes of megatron-core {version}" in shown
    assert "knobs: scanning src" in shown
    # Piped, the same slow steps (a fresh cache: the config classes are read) show nothing:
    # standard error holds only the line the in-process wrapper prints, that torch came in.
    _, _, quiet = first_check
    assert (quiet.returncode, quiet.stderr) == (0, "True\n")
    assert quiet.stdout == stdout
