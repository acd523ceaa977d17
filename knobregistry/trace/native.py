"""The C level: build the getenv interposer with the system C compiler, once, and cache it.

The library is keyed by the hash of its source and the machine, so a changed
interposer is rebuilt and an unchanged one never is. Where it cannot be built
(no compiler, not Linux, a compiler error), the C level is skipped with a note
that says why: never silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(__file__).with_name("interposer.c")
COMPILERS = ("cc", "gcc", "clang")
COMPILE_SECONDS = 120


@dataclass(frozen=True, slots=True)
class NativeLevel:
    """The interposer to preload, or why there is none."""

    library: Path | None
    skipped: str | None = None  # a sentence: why the C level is skipped


def find_compiler(environ: dict[str, str] | None = None) -> str | None:
    """``$CC`` when it is set, else the first of cc, gcc, clang on PATH."""
    env = os.environ if environ is None else environ
    named = env.get("CC", "").strip()
    if named:
        return shutil.which(named.split()[0], path=env.get("PATH"))
    for name in COMPILERS:
        found = shutil.which(name, path=env.get("PATH"))
        if found is not None:
            return found
    return None


def library_name() -> str:
    """``interposer-<hash>.so``: the hash of the source and the machine it is built for."""
    digest = hashlib.sha256(SOURCE.read_bytes())
    digest.update(f"\0{sys.platform}\0{platform.machine()}".encode())
    return f"interposer-{digest.hexdigest()[:16]}.so"


def native_level(cache: Path) -> NativeLevel:
    """The cached interposer under ``cache``, built first if it is not there yet."""
    if not sys.platform.startswith("linux"):
        return NativeLevel(None, f"the C level needs Linux (LD_PRELOAD); this is {sys.platform}")
    target = cache / "trace" / library_name()
    if target.is_file():
        return NativeLevel(target)
    compiler = find_compiler()
    if compiler is None:
        return NativeLevel(
            None,
            "no C compiler ($CC, cc, gcc or clang on PATH) to build the getenv interposer; "
            "getenv calls from native libraries are not recorded",
        )
    try:
        _build(compiler, target)
    except (OSError, subprocess.SubprocessError, _BuildError) as exc:
        return NativeLevel(None, f"the getenv interposer did not build ({exc})")
    return NativeLevel(target)


class _BuildError(Exception):
    pass


def _build(compiler: str, target: Path) -> None:
    """Compile beside ``target``, then rename over it: racing builds are harmless."""
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(prefix=".interposer.", suffix=".so", dir=target.parent)
    os.close(descriptor)
    temporary = Path(name)
    try:
        command = [compiler, "-shared", "-fPIC", "-O2", "-o", name, str(SOURCE), "-ldl", "-pthread"]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=COMPILE_SECONDS, check=False
        )
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            raise _BuildError(f"{Path(compiler).name} exited {done.returncode}: {first}")
        temporary.replace(target)
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()
