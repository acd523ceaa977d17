"""The sample project most CLI and plugin tests run on: pkg/ with a wrapper, four
knobs and a registry in sync with them, and the one edit that breaks the sync."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_knobs, write_tree

ENVS = """\
import os


def env_flag(name, default="1"):
    return os.environ.get(name, default) != "0"
"""

MODEL = """\
import os

from pkg.envs import env_flag

HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"
ROPE = env_flag("PRIMUS_ROPE_TRITON")
FP8 = os.environ.get("PRIMUS_FP8", "0") == "1"
BLOCK = int(os.environ.get("PRIMUS_BLOCK", "64"))
"""

REGISTRY = """
    version: 1
    scan:
      paths:
        - pkg
      policy: all
    knobs:
      PRIMUS_HC_TRITON:
        gates:
          kernel: hyper-connection glue (Triton)
          pass: both
        default: "1"
        default_on: true
        triage: breaks-bitwise
        breaks: backward
      PRIMUS_ROPE_TRITON:
        default: "1"
        default_on: true
        triage: reproducible
      PRIMUS_FP8:
        default: "0"
        default_on: false
        triage: untriaged
      PRIMUS_BLOCK:
        default: "64"
        default_on: null
        triage: exempt
        reason: A block size, not a kernel switch.
    """

# A new fusion, on by default and not registered: appended to pkg/model.py, at 9:7.
NEW_GATE = 'NEW = os.environ.get("PRIMUS_NEW_TRITON", "1") != "0"\n'

# What `knobs check` (and the plugin, and the API) says about it.
NEW_GATE_FAILURE = """\
pkg/model.py:9:7: KNB001 error: PRIMUS_NEW_TRITON is not registered in registry.yaml: it is on by default ("0" turns it off) and read here.
    Register it in registry.yaml under `knobs:`, then triage it:
      PRIMUS_NEW_TRITON:
        default: "1"
        default_on: true
        role:
          proposed: unknown
          reason: "the name PRIMUS_NEW_TRITON says TRITON, a hint of a kernel choice, but no code it reaches shows one: words alone are not evidence"
        triage: untriaged
"""  # noqa: E501

IN_SYNC = "No problems: 4 knobs in 3 files checked against registry.yaml (policy all).\n"


def project(root: Path, registry: str = REGISTRY, **files: str) -> Path:
    """The sample project: pkg/ with a wrapper and four knobs, and its registry."""
    tree = {
        "pkg/__init__.py": "",
        "pkg/envs.py": ENVS,
        "pkg/model.py": MODEL,
        "registry.yaml": registry,
    }
    tree.update({name.replace("__", "/").replace("_py", ".py"): t for name, t in files.items()})
    return write_tree(root, tree)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def check(cwd: Path, *args: str) -> tuple[int, str, str]:
    result = run_knobs("check", *args, cwd=cwd)
    return result.returncode, result.stdout, result.stderr


def append(root: Path, line: str = NEW_GATE) -> None:
    """Append ``line`` (a new default-on gate by default) to the project's pkg/model.py."""
    with (root / "pkg/model.py").open("a", encoding="utf-8") as file:
        file.write(line)
