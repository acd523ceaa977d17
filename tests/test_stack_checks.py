"""KNB113: a bitwise profile that does not set a catalogued determinism setting of a library
the project uses on its platform (a note), run through the real `knobs check`."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry.catalogue import Platform
from knobregistry.check.rules.stack_settings import registry_platform
from knobregistry.registry import load_registry
from tests.conftest import run_knobs, write_tree

KERNEL = 'import os\nFUSED = os.environ.get("DEMO_FUSED", "1") != "0"\n'


def _project(tmp_path: Path, *init: str) -> Path:
    root = write_tree(tmp_path / "p", {"requirements.txt": "torch\n", "src/m.py": KERNEL})
    (root / ".git").mkdir()
    done = run_knobs("init", "src", *init, cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def _edit(root: Path, old: str, new: str) -> None:
    path = root / "registry.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_what_init_writes_checks_clean(tmp_path: Path) -> None:
    root = _project(tmp_path, "--platform", "rocm")
    done = run_knobs("check", cwd=root)
    assert (done.returncode, done.stdout) == (
        0,
        "No problems: 1 knob in 1 file checked against registry.yaml (policy all).\n",
    )


def test_a_missing_variable_and_a_wrong_call_value_are_noted(tmp_path: Path) -> None:
    root = _project(tmp_path, "--platform", "rocm")
    _edit(root, "  ROCBLAS_DEFAULT_ATOMICS_MODE:\n", "  ROCBLAS_OTHER:\n")
    _edit(
        root,
        "      torch.use_deterministic_algorithms: true\n",
        "      torch.use_deterministic_algorithms: false\n",
    )
    done = run_knobs("check", cwd=root)
    line = (root / "registry.yaml").read_text(encoding="utf-8").splitlines().index("  bitwise:")
    where = f"registry.yaml:{line + 1}:3"
    assert done.returncode == 0  # a note does not fail the check
    assert done.stdout == (
        f"{where}: KNB113 note: profile 'bitwise' (kind bitwise) does not set "
        "ROCBLAS_DEFAULT_ATOMICS_MODE: rocBLAS's default atomics mode of new handles "
        "(ROCBLAS_DEFAULT_ATOMICS_MODE=0); the project uses rocBLAS (torch (named in "
        "requirements.txt)).\n"
        "    register ROCBLAS_DEFAULT_ATOMICS_MODE under `external:` as `knobs catalogue "
        "rocBLAS` gives it and let profile 'bitwise' set it (source: "
        "https://sources.debian.org/src/rocblas/6.4.4-2/docs/how-to/Programmers_Guide.rst).\n"
        f"{where}: KNB113 note: profile 'bitwise' (kind bitwise) sets false, not true, for "
        "torch.use_deterministic_algorithms: torch's deterministic algorithms, and an error "
        "where an operation has none (true); the project uses torch (torch (named in "
        "requirements.txt)).\n"
        "    give torch.use_deterministic_algorithms the value true in profile 'bitwise' "
        "(source: https://docs.pytorch.org/docs/stable/generated/"
        "torch.use_deterministic_algorithms.html).\n"
        "\n"
        "Found 2 notes: 1 knob in 1 file checked against registry.yaml (policy all).\n"
    )


def test_without_a_platform_only_settings_of_every_platform_are_asked(tmp_path: Path) -> None:
    root = _project(tmp_path)  # no --platform: no platform-specific setting registered
    _edit(root, "  PYTHONHASHSEED:\n", "  PYTHONHASHSEED_OTHER:\n")
    done = run_knobs("check", cwd=root)
    assert done.returncode == 0
    notes = [line for line in done.stdout.splitlines() if "KNB113" in line]
    assert len(notes) == 1
    assert "does not set PYTHONHASHSEED:" in notes[0]


def test_a_project_using_no_catalogued_library_gets_no_note(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"src/m.py": KERNEL})
    (root / ".git").mkdir()
    assert run_knobs("init", "src", cwd=root).returncode == 0
    done = run_knobs("check", cwd=root)
    assert "KNB113" not in done.stdout


@pytest.mark.parametrize(
    ("library", "platform"),
    [("RCCL", Platform.ROCM), ("NCCL", Platform.CUDA), ("NCCL / RCCL", None)],
)
def test_the_platform_is_the_registry_stack_settings(
    tmp_path: Path, library: str, platform: Platform | None
) -> None:
    write_tree(
        tmp_path,
        {
            "registry.yaml": "version: 1\nknobs: {}\nexternal:\n  NCCL_ALGO:\n"
            f"    library: {library}\n    description: d\n    role: stack\n"
            "    deterministic: Ring\n"
        },
    )
    assert registry_platform(load_registry(tmp_path / "registry.yaml")) is platform
