"""Evidence from the run: the versions and hardware that the command itself sees.

The probe (probe_script.py, run with `python -c`) goes through the command's own
launcher and environment: the words of the command before its Python interpreter
are kept (`srun -N 2`, `env -i ...`, `uv run`, `docker run IMAGE`), the
interpreter is the command's (`python3`, `.venv/bin/python`, or the one a
script's shebang names, as for `torchrun` or `./train.py`), and the probe gets
the baseline's environment. `--probe COMMAND` names a probe instead: when its
last word is a Python interpreter, `-c PROBE` is added; otherwise it runs as is
and must print the probe's JSON line(s) itself.

Each process the probe runs in prints one line (one per rank under `srun`): the
hostnames are all of theirs, the GPU count the sum over hosts of what each host
sees. When there is no probe to run (the command is a shell script) or it fails,
the evidence is that of the Python that runs knobs, with a note saying so.
"""

from __future__ import annotations

import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from knobregistry._io.jsontext import loads
from knobregistry.triage.host import Host, describe_host
from knobregistry.triage.runner import ORIGIN_VARIABLE, RUN_DIR_VARIABLE, resolve_arguments

SOURCE = (Path(__file__).with_name("probe_script.py")).read_text(encoding="utf-8")
MARK = "knobs-probe"
PROBE_TIMEOUT_S = 300.0
PROBE_OUTPUT_BYTES = 1 << 20  # a report is a line of JSON: more is not a probe's output
ERROR_TAIL_BYTES = 8192  # of its errors, what a message may quote from
SHOWN_SOURCE = "<knobs probe>"
_PYTHON = re.compile(r"^(python|pypy)(\d+(\.\d+)*)?$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish"})


@dataclass(frozen=True, slots=True)
class Probe:
    """How to learn what the command sees: a probe command line, or why there is none."""

    command: tuple[str, ...] | None
    reason: str = ""  # why there is no probe

    @property
    def shown(self) -> str:
        """The probe as people read it: its source stands as `<knobs probe>`."""
        assert self.command is not None
        return shlex.join(SHOWN_SOURCE if w == SOURCE else w for w in self.command)


def find_probe(command: Sequence[str], origin: Path, explicit: str | None = None) -> Probe:
    """The probe for ``command``: its launcher words, its interpreter, `-c PROBE`."""
    if explicit is not None:
        words = tuple(shlex.split(explicit))
        if words and _PYTHON.match(Path(words[-1]).name):
            return Probe((*words, "-c", SOURCE))
        return Probe(words or None, "--probe is empty")
    for index, word in enumerate(command):
        name = Path(word).name
        if _ASSIGNMENT.match(word) or word.startswith("-"):
            continue
        if _PYTHON.match(name):
            return Probe((*command[: index + 1], "-c", SOURCE))
        if name in _SHELLS:
            break
        shebang = _shebang(word, origin)
        if shebang is None:
            continue  # a launcher (srun, env, uv), or a word of its options
        interpreter = shebang[-1] if shebang else ""
        if _PYTHON.match(Path(interpreter).name):
            return Probe((*command[:index], *shebang, "-c", SOURCE))
        break  # a script of another language: the interpreter is in there
    first = command[0] if command else ""
    return Probe(
        None,
        f"`{Path(first).name}` is not a Python interpreter and the command names none "
        "before its script",
    )


def _shebang(word: str, origin: Path) -> tuple[str, ...] | None:
    """The interpreter line of the script ``word`` names (empty: a file without one);
    None when it names no file here."""
    path = Path(word) if "/" in word else None
    if path is not None and not path.is_absolute():
        path = origin / path
    if path is None:
        found = shutil.which(word)
        path = Path(found) if found else None
    if path is None or not path.is_file():
        return None
    try:
        with path.open("rb") as file:
            head = file.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return () if not head.startswith(b"\x7fELF") else None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    words = tuple(line.split())
    if len(words) >= 2 and Path(words[0]).name == "env":
        words = tuple(w for w in words if not w.startswith("-"))
    return words


def run_probe(
    probe: Probe,
    origin: Path,
    folder: Path,
    environment: Mapping[str, str],
    timeout: float | None,
) -> Host:
    """The host the command sees, from its probe; the local one, with a note, on failure."""
    if probe.command is None:
        return _local(probe.reason)
    folder.mkdir(parents=True, exist_ok=True)
    env = {**environment, RUN_DIR_VARIABLE: str(folder), ORIGIN_VARIABLE: str(origin)}
    try:
        process = subprocess.Popen(
            resolve_arguments(probe.command, origin),
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return _local(f"the probe `{probe.shown}` could not start: {exc.strerror}")
    try:
        out, err, problem = _collect(process, timeout or PROBE_TIMEOUT_S)
    finally:
        # On every way out (a signal to triage included): nothing of the probe lives on.
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        shutil.rmtree(folder, ignore_errors=True)
    if problem is not None:
        return _local(f"the probe `{probe.shown}` {problem}")
    reports = [r for r in map(_report, out.decode("utf-8", "replace").splitlines()) if r]
    if process.returncode != 0 or not reports:
        tail = err.decode("utf-8", "replace").strip().splitlines()
        said = f" ({tail[-1].strip()})" if tail else ""
        what = f"exited with status {process.returncode}" if process.returncode else "printed"
        what += said if process.returncode else " no probe report"
        return _local(f"the probe `{probe.shown}` {what}")
    executable = reports[0].get("executable")
    where = f" ({executable})" if executable else ""
    return _host(reports, f"probe: {probe.shown}{where}")


def _collect(process: subprocess.Popen[bytes], timeout: float) -> tuple[bytes, bytes, str | None]:
    """The probe's output (at most PROBE_OUTPUT_BYTES) and the tail of its errors, as it
    ends; with what went wrong when it ran too long or printed too much."""
    deadline = time.monotonic() + timeout
    out, err = bytearray(), bytearray()
    with selectors.DefaultSelector() as selector:
        for pipe, buffer in ((process.stdout, out), (process.stderr, err)):
            assert pipe is not None
            selector.register(pipe, selectors.EVENT_READ, buffer)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return bytes(out), bytes(err), "timed out"
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                buffer = key.data
                buffer += chunk
                if buffer is out and len(out) > PROBE_OUTPUT_BYTES:
                    return bytes(out), bytes(err), f"printed more than {PROBE_OUTPUT_BYTES} bytes"
                if buffer is err:
                    del err[:-ERROR_TAIL_BYTES]
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return bytes(out), bytes(err), "timed out"
    return bytes(out), bytes(err), None


def _report(line: str) -> dict[str, Any] | None:
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        value = loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) and value.get("probe") == MARK else None


def _host(reports: list[dict[str, Any]], source: str) -> Host:
    first = reports[0]
    hosts = sorted({str(r.get("host")) for r in reports if r.get("host")})
    per_host: dict[str, int] = {}
    for report in reports:
        count = report.get("gpus")
        if isinstance(count, int):
            key = str(report.get("host"))
            per_host[key] = max(per_host.get(key, 0), count)
    versions = {str(k): str(v) for k, v in dict(first.get("versions") or {}).items()}
    gpu = next((str(r["gpu"]) for r in reports if r.get("gpu")), None)
    return Host(
        name=hosts[0] if hosts else "unknown",
        gpu=gpu,
        versions=dict(sorted(versions.items())),
        gpus=sum(per_host.values()) if per_host else None,
        hosts=tuple(hosts) if len(hosts) > 1 else (),
        source=source,
    )


def _local(reason: str) -> Host:
    host = describe_host()
    note = (
        f"the versions recorded are those of the Python that runs knobs ({sys.executable}), "
        f"not the command's: {reason}; name a probe with --probe COMMAND"
    )
    return replace(
        host, source=f"the Python that runs knobs ({sys.executable}): {reason}", note=note
    )
