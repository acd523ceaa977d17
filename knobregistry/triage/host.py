"""Where a triage ran: the host, the GPU torch sees, and the versions of the software."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class Host:
    """Where the runs ran, as the command sees it (see probe.py), or as knobs does."""

    name: str
    gpu: str | None = None
    versions: Mapping[str, str] = field(default_factory=dict)
    gpus: int | None = None  # the GPUs the command sees, over all its hosts (None: unknown)
    hosts: tuple[str, ...] = ()  # every hostname, when the command ran on more than one
    source: str | None = None  # where these facts come from: its probe, or knobs' own Python
    note: str | None = None  # for people, when they are not the command's own


def describe_host() -> Host:
    """This machine, as the Python that runs knobs sees it.

    The GPU name comes from torch (`torch.cuda.get_device_name`, which also names
    ROCm devices) when torch is installed and sees a device; torch is imported only
    then, after the runs.
    """
    versions = {"python": platform.python_version()}
    for name in ("torch", "triton"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    gpu = None
    if importlib.util.find_spec("torch") is not None:
        gpu, extra = _torch_device()
        versions.update(extra)
    return Host(name=socket.gethostname(), gpu=gpu, versions=dict(sorted(versions.items())))


def _torch_device() -> tuple[str | None, dict[str, str]]:
    import torch

    extra: dict[str, str] = {}
    hip = getattr(torch.version, "hip", None)
    cuda = getattr(torch.version, "cuda", None)
    if hip:
        extra["rocm"] = str(hip)
    elif cuda:
        extra["cuda"] = str(cuda)
    try:
        if torch.cuda.is_available():
            return str(torch.cuda.get_device_name(0)), extra
    except (RuntimeError, AssertionError):  # a broken driver is no reason to lose the results
        pass
    return None, extra
