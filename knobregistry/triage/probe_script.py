"""The evidence probe: what the Python that runs it sees, as one JSON line on stdout.

`knobs triage` runs this source with `python -c` under the command's own interpreter,
launcher and environment (see probe.py). It imports nothing of knobregistry, so any
Python 3 runs it, with or without torch: `python probe_script.py` prints the same.
Fields are null when unknown; a package that is not installed is left out of
`versions`.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import platform
import socket
import sys
from pathlib import Path

MARK = "knobs-probe"


def _version(*names: str) -> str | None:
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _driver() -> str | None:
    """The GPU kernel driver's version: NVIDIA's or amdgpu's, from the kernel."""
    try:
        words = Path("/proc/driver/nvidia/version").read_text(encoding="utf-8").split()
        for index, word in enumerate(words):
            if word == "Module" and index + 1 < len(words):
                number = next((w for w in words[index + 1 :] if w[:1].isdigit()), None)
                if number:
                    return "nvidia " + number
    except OSError:
        pass
    try:
        return "amdgpu " + Path("/sys/module/amdgpu/version").read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _torch_build() -> dict[str, object] | None:
    """torch.version's ``cuda`` and ``hip``, read from the source of torch/version.py (a
    file of literal assignments that the build writes) without importing torch; None when
    it cannot be found or read that way."""
    try:
        spec = importlib.util.find_spec("torch")
        folders = list(spec.submodule_search_locations or ()) if spec else []
        tree = ast.parse(Path(folders[0], "version.py").read_text(encoding="utf-8"))
    except (ImportError, ValueError, IndexError, OSError, SyntaxError):
        return None
    build: dict[str, object] = {}
    for node in tree.body:
        target: ast.expr | None = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id in ("cuda", "hip") and value is not None:
            try:
                build[target.id] = ast.literal_eval(value)
            except ValueError:
                return None
    return build if set(build) == {"cuda", "hip"} else None


def probe() -> dict[str, object]:
    versions = {"python": platform.python_version()}
    for key, names in (
        ("torch", ("torch",)),
        ("triton", ("triton", "pytorch-triton-rocm", "pytorch-triton")),
        ("megatron-core", ("megatron-core", "megatron_core")),
        # The frameworks whose kernels a knob's verdict may rest on
        # (knobregistry.project.fingerprints compares these names with what is installed where
        # `knobs check` runs).
        ("transformer-engine", ("transformer-engine", "transformer_engine")),
        ("torchtitan", ("torchtitan",)),
        ("vllm", ("vllm",)),
        ("deepspeed", ("deepspeed",)),
    ):
        found = _version(*names)
        if found:
            versions[key] = found
    gpu: str | None = None
    gpus: int | None = None
    build = _torch_build() if "torch" in versions else None
    if build is not None and build == {"cuda": None, "hip": None}:
        gpus = 0  # a CPU build of torch sees no GPU: no need to import it (seconds)
    elif "torch" in versions and importlib.util.find_spec("torch") is not None:
        try:
            import torch

            hip = getattr(torch.version, "hip", None)
            cuda = getattr(torch.version, "cuda", None)
            if hip:
                versions["rocm"] = str(hip)
            elif cuda:
                versions["cuda"] = str(cuda)
            gpus = int(torch.cuda.device_count())
            if gpus:
                gpu = str(torch.cuda.get_device_name(0))
        except Exception:  # a broken driver or install: report what is known
            pass
    driver = _driver()
    if driver:
        versions["driver"] = driver
    return {
        "probe": MARK,
        "host": socket.gethostname(),
        "executable": sys.executable,
        "gpu": gpu,
        "gpus": gpus,
        "versions": dict(sorted(versions.items())),
    }


if __name__ == "__main__":
    print(json.dumps(probe(), sort_keys=True), flush=True)
