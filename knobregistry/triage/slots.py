"""Slots: what sets concurrent runs apart, so that `--jobs K` runs never share devices or ports.

Each of the K runs in flight holds a slot (0..K-1) for as long as it runs and sees
it as KNOBS_TRIAGE_SLOT. With `--devices-per-run N`, slot s gets devices
s*N..s*N+N-1 of the visible ones; with K > 1, slot s gets MASTER_PORT base + s
(base: the caller's MASTER_PORT, else 29500, torchrun's default).

The visible devices are the caller's list in the variable the runtime applies
last (CUDA_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES, then ROCR_VISIBLE_DEVICES,
which HIP applies first), and each slot gets its share in that same variable;
with none set, the count torch reports, as CUDA_VISIBLE_DEVICES (or
HIP_VISIBLE_DEVICES on a ROCm build).
"""

from __future__ import annotations

import importlib.util
import queue
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

SLOT_VARIABLE = "KNOBS_TRIAGE_SLOT"
PORT_VARIABLE = "MASTER_PORT"
DEVICE_VARIABLES = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")
DEFAULT_PORT = 29500
MOST_JOBS = 1024  # runs of one sweep at once, here or as Slurm jobs (commands/jobs.py)


class SlotError(ValueError):
    """A --jobs / --devices-per-run combination that does not fit."""


@dataclass(frozen=True, slots=True)
class Devices:
    """The devices to split: their ids, the variable they go in, and where they came from."""

    ids: tuple[str, ...]
    variable: str
    source: str  # `CUDA_VISIBLE_DEVICES=0,1,2,3`, or `torch reports 8`


@dataclass(frozen=True, slots=True)
class Slots:
    """What each slot's run sets over its setting's environment (index: the slot)."""

    environments: tuple[Mapping[str, str], ...]


def make_slots(
    jobs: int,
    devices_per_run: int | None,
    environ: Mapping[str, str],
    count_devices: Callable[[], tuple[int, bool]] | None = None,
) -> Slots:
    """The slots of ``jobs`` concurrent runs; raises SlotError when the devices do not fit.

    ``count_devices`` (torch's count, and whether it is a ROCm build) is asked only
    when ``devices_per_run`` is given and the caller lists no devices.
    """
    if not 1 <= jobs <= MOST_JOBS:
        raise SlotError(f"--jobs {jobs} is not from 1 to {MOST_JOBS}, the runs it makes at once")
    devices = None
    if devices_per_run is not None:
        devices = visible_devices(environ, count_devices or torch_devices)
        _check_fit(jobs, devices_per_run, devices)
    base = _base_port(environ)
    environments: list[dict[str, str]] = []
    for slot in range(jobs):
        env = {SLOT_VARIABLE: str(slot)}
        if jobs > 1:
            env[PORT_VARIABLE] = str(base + slot)
        if devices is not None and devices_per_run is not None:
            share = devices.ids[slot * devices_per_run : (slot + 1) * devices_per_run]
            env[devices.variable] = ",".join(share)
        environments.append(env)
    return Slots(tuple(environments))


def visible_devices(
    environ: Mapping[str, str], count_devices: Callable[[], tuple[int, bool]]
) -> Devices:
    """The caller's device list, or as many devices as torch reports."""
    for variable in DEVICE_VARIABLES:
        if variable in environ:
            value = environ[variable]
            ids = tuple(part.strip() for part in value.split(",") if part.strip())
            return Devices(ids, variable, f"{variable}={value}")
    count, rocm = count_devices()
    variable = "HIP_VISIBLE_DEVICES" if rocm else "CUDA_VISIBLE_DEVICES"
    return Devices(tuple(str(i) for i in range(count)), variable, f"torch reports {count}")


def torch_devices() -> tuple[int, bool]:
    """How many devices torch sees (0 without torch), and whether it is a ROCm build."""
    if importlib.util.find_spec("torch") is None:
        return 0, False
    import torch

    try:
        count = int(torch.cuda.device_count())
    except (RuntimeError, AssertionError):
        count = 0
    return count, bool(getattr(torch.version, "hip", None))


def _check_fit(jobs: int, per_run: int, devices: Devices) -> None:
    visible = len(devices.ids)
    if visible == 0:
        raise SlotError(
            f"--devices-per-run {per_run}: no devices are visible ({devices.source}); list "
            "the devices to split in CUDA_VISIBLE_DEVICES (or HIP_VISIBLE_DEVICES, "
            "ROCR_VISIBLE_DEVICES), e.g. CUDA_VISIBLE_DEVICES=0,1,2,3."
        )
    if per_run > visible:
        raise SlotError(
            f"--devices-per-run {per_run} is more than the {_devices(visible)} visible "
            f"({devices.source}); give at most {visible}."
        )
    if jobs * per_run > visible:
        fixes = f"lower --jobs to {visible // per_run}"
        if visible >= jobs:
            fixes += f", or --devices-per-run to {visible // jobs}"
        raise SlotError(
            f"--jobs {jobs} with --devices-per-run {per_run} needs {_devices(jobs * per_run)}, "
            f"but {_devices(visible)} {'is' if visible == 1 else 'are'} visible "
            f"({devices.source}); {fixes}."
        )


def _devices(count: int) -> str:
    return f"{count} device{'' if count == 1 else 's'}"


def _base_port(environ: Mapping[str, str]) -> int:
    try:
        port = int(environ.get(PORT_VARIABLE, DEFAULT_PORT))
    except ValueError:
        return DEFAULT_PORT
    return port if 0 < port < 65536 else DEFAULT_PORT


class SlotPool:
    """Hands each run a slot no other live run holds (at most ``jobs`` runs are live)."""

    def __init__(self, slots: Slots) -> None:
        self.slots = slots
        self._free: queue.SimpleQueue[int] = queue.SimpleQueue()
        for slot in range(len(slots.environments)):
            self._free.put(slot)

    @contextmanager
    def take(self) -> Iterator[Mapping[str, str]]:
        """A free slot's environment, for the duration of one run."""
        slot = self._free.get()
        try:
            yield self.slots.environments[slot]
        finally:
            self._free.put(slot)
