"""What each command imports when it starts: only what its work needs.

Every command runs twice in a small project, with Python's import log on
(PYTHONPROFILEIMPORTTIME); the second run, with the scan cached and the registry
known valid, is held to a golden list of the heavy packages it may import. Nothing
is timed: benchmarks/startup_bench.py measures the seconds.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, run_knobs, write_tree

# The packages whose import costs the most, or that only some paths need.
HEAVY = ("jsonschema", "rich", "pygments", "libcst", "yaml", "torch", "megatron")

PROJECT = {
    "src/fused.py": """
        import os

        FUSED = os.environ.get("DEMO_FUSED_TRITON", "1") != "0"
        """,
    "registry.yaml": """
        version: 1
        scan:
          paths: [src]
          policy: all
        knobs:
          DEMO_FUSED_TRITON:
            default: "1"
            default_on: true
            triage: untriaged
        profiles:
          bitwise:
            description: Bit for bit.
            kind: bitwise
            env:
              DEMO_FUSED_TRITON: "0"
        """,
}


def project(root: Path) -> Path:
    """The project, committed in a git repository (for `knobs diff`)."""
    write_tree(root, PROJECT)
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "project"]):
        subprocess.run(["git", *command], cwd=root, env={**GIT_ENV}, check=True)
    return root


def heavy_imports(stderr: str) -> list[str]:
    """The heavy packages that Python's import log (``-X importtime``) lists."""
    names = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in stderr.splitlines()
        if line.startswith("import time:") and "self [us]" not in line
    }
    return [package for package in HEAVY if package in names]


def knobs(root: Path, *args: str, log: bool = False) -> subprocess.CompletedProcess[str]:
    """`knobs ARGS` in ``root``, with a cache folder of the project's own (so that no other
    test has already scanned or validated the same files); with ``log``, Python's import log
    on its standard error."""
    env = {"KNOBS_CACHE_DIR": str(root.parent / "cache")}
    if log:
        env["PYTHONPROFILEIMPORTTIME"] = "1"
    return run_knobs(*args, cwd=root, env=env)


def imports_of(root: Path, *args: str) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    """The heavy packages `knobs ARGS` imports in ``root``, and how it ended."""
    done = knobs(root, *args, log=True)
    return heavy_imports(done.stderr), done


# command -> the heavy packages its warm run imports (piped: never rich for plain output)
GOLDEN: dict[tuple[str, ...], list[str]] = {
    ("--version",): [],
    ("rule", "KNB001"): [],
    ("rule",): [],
    ("check",): ["yaml"],
    ("check", "--format", "json"): ["yaml"],
    ("export", "--profile", "bitwise"): ["yaml"],
    ("explain", "DEMO_FUSED_TRITON"): ["yaml"],
    ("init", "--output", "started.yaml", "--force"): ["yaml"],
    ("diff", "HEAD"): ["yaml"],
    ("trace", "--help"): ["yaml"],
    ("triage", "--help"): ["rich", "yaml"],
}


@pytest.mark.parametrize("args", list(GOLDEN), ids=" ".join)
def test_a_warm_command_imports_only_what_its_work_needs(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    root = project(tmp_path / "project")
    first = knobs(root, *args)  # fills the scan cache, and finds the registry valid
    assert first.returncode == 0, first.stderr
    heavy, done = imports_of(root, *args)
    assert done.returncode == 0, done.stderr
    assert heavy == GOLDEN[args]


def test_the_first_check_validates_and_the_second_skips_the_validator(tmp_path: Path) -> None:
    root = project(tmp_path / "project")
    cold, done = imports_of(root, "check")
    assert done.returncode == 0, done.stderr
    warm, again = imports_of(root, "check")
    assert (cold, warm) == (["jsonschema", "libcst", "yaml"], ["yaml"])
    assert again.stdout == done.stdout


def test_a_registry_that_turns_invalid_is_validated_and_fails_in_full(tmp_path: Path) -> None:
    # The registry was found valid once; a mistake added since is reported, every problem at
    # once, on every run.
    root = project(tmp_path / "project")
    assert knobs(root, "check").returncode == 0
    registry = root / "registry.yaml"
    registry.write_text(
        registry.read_text(encoding="utf-8").replace("triage: untriaged", "trige: untriaged"),
        encoding="utf-8",
    )
    for _ in range(2):  # a failed validation is not remembered
        heavy, done = imports_of(root, "check")
        assert done.returncode == 2
        assert "jsonschema" in heavy
        problems = [line for line in done.stderr.splitlines() if line.startswith("registry.yaml")]
        assert problems == [
            "registry.yaml:6:3: knobs.DEMO_FUSED_TRITON: missing required key 'triage'; say "
            "whether the knob is 'reproducible', 'breaks-bitwise', 'untriaged' or 'exempt' (use "
            "'untriaged' until it has been measured).",
            "registry.yaml:9:5: knobs.DEMO_FUSED_TRITON.trige: unknown key; did you mean 'triage'?",
        ]


@pytest.mark.parametrize(
    "args", [("export", "--profile", "bitwise"), ("triage", "--help")], ids=" ".join
)
def test_a_command_that_does_not_scan_does_not_import_the_scan(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """scanner/__init__ imports its names when asked for: a command that needs only
    scanner.conventions or scanner.model leaves the scan (scanner.run.scan) unimported."""
    root = project(tmp_path / "project")
    done = knobs(root, *args, log=True)
    assert done.returncode == 0, done.stderr
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "scanner.conventions" in modules
    assert "scanner.run.scan" not in modules
