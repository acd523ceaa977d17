"""The C level: build the getenv interposer with the system C compiler, once, and cache it.

The library is keyed by the hash of its source and the machine, so a changed
interposer is rebuilt and an unchanged one never is. Where it cannot be built
(no compiler, not Linux, a compiler error), the C level is skipped with a note
that says why: never silently.

The library is code that every traced process loads, so it is taken from the cache only
when nobody else could have put it there, and only when it is what knobs built:

- it lives in `CACHE/interposer/`, a folder knobs makes private (0700); a folder there
  that another user owns or can write in, or a folder above it that everyone can
  write in without the sticky bit of /tmp (so that they could rename what is in it),
  is refused: the C level is skipped, saying which folder and how to fix it;
- the library and `NAME.sha256` beside it, the SHA-256 of what knobs built, are
  regular files of this user's that nobody else can write; a library that does not
  match its digest (truncated, replaced) is rebuilt, never preloaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(__file__).with_name("interposer.c")
COMPILERS = ("cc", "gcc", "clang")
COMPILE_SECONDS = 120
FOLDER = "interposer"  # under the cache folder, made private
MAX_LIBRARY_BYTES = 16 * 1024 * 1024  # the interposer is tens of kilobytes


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
    folder = cache / FOLDER
    try:
        _make_private(folder)
    except OSError as exc:
        return NativeLevel(None, f"the getenv interposer's folder {folder} cannot be made ({exc})")
    refused = _refused(folder)
    if refused is not None:
        return NativeLevel(None, refused)
    target = folder / library_name()
    if _intact(target):
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


def _make_private(folder: Path) -> None:
    """Make ``folder`` (0700) when it is missing; the cache folder above it as the umask says."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
        folder.chmod(0o700)  # whatever the umask


def _refused(folder: Path) -> str | None:
    """Why no library is loaded from ``folder``: another user owns it or can write in it,
    or can rename it (a folder above it everyone can write in, without the sticky bit)."""
    real = Path(os.path.realpath(folder))
    fix = "; make it private (chmod go-w {0}), or set KNOBS_CACHE_DIR to a folder of your own"
    start = f"the getenv interposer is not loaded from {folder.as_posix()}: "
    try:
        status = real.stat()
    except OSError as exc:
        return f"{start}it cannot be read ({exc.strerror or exc})"
    mode = stat.S_IMODE(status.st_mode)
    if status.st_uid != os.geteuid():
        return f"{start}it belongs to another user (uid {status.st_uid})" + fix.format(
            folder.as_posix()
        )
    if mode & 0o022:
        return f"{start}other users can write in it (mode {mode:04o})" + fix.format(
            folder.as_posix()
        )
    for above in real.parents:
        try:
            above_mode = above.stat().st_mode
        except OSError:
            continue
        if above_mode & stat.S_IWOTH and not above_mode & stat.S_ISVTX:
            shown = above.as_posix()
            return (
                f"{start}other users can write in {shown} (mode "
                f"{stat.S_IMODE(above_mode):04o})" + fix.format(shown)
            )
    return None


def _digest_path(library: Path) -> Path:
    return library.with_name(library.name + ".sha256")


def _owned(status: os.stat_result) -> bool:
    """A regular file of this user's, of one link, that nobody else can write."""
    return (
        stat.S_ISREG(status.st_mode)
        and status.st_uid == os.geteuid()
        and status.st_nlink == 1
        and not status.st_mode & 0o022
    )


def _read_owned(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` when _owned says it is ours (never through a link)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    try:
        if not _owned(os.fstat(descriptor)):
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as file:
            data = file.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(descriptor)


def _intact(library: Path) -> bool:
    """Whether ``library`` is what knobs built: ours, and its SHA-256 the one recorded."""
    data = _read_owned(library, MAX_LIBRARY_BYTES)
    recorded = _read_owned(_digest_path(library), 64)
    return (
        data is not None
        and recorded is not None
        and hashlib.sha256(data).hexdigest().encode() == recorded
    )


def _build(compiler: str, target: Path) -> None:
    """Compile beside ``target``, record its digest, then rename over it: racing builds are
    harmless (each renames a library and its digest that match)."""
    descriptor, name = tempfile.mkstemp(prefix=".interposer.", suffix=".so", dir=target.parent)
    os.close(descriptor)
    temporary = Path(name)
    digest = _digest_path(temporary)
    try:
        command = [compiler, "-shared", "-fPIC", "-O2", "-o", name, str(SOURCE), "-ldl", "-pthread"]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=COMPILE_SECONDS, check=False
        )
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            raise _BuildError(f"{Path(compiler).name} exited {done.returncode}: {first}")
        temporary.chmod(0o755)  # the linker made it as the umask says
        data = temporary.read_bytes()
        if not data:
            raise _BuildError(f"{Path(compiler).name} wrote an empty library")
        digest.write_text(hashlib.sha256(data).hexdigest(), encoding="ascii")
        digest.chmod(0o644)
        temporary.replace(target)
        digest.replace(_digest_path(target))
    finally:
        for path in (temporary, digest):
            with contextlib.suppress(OSError):
                path.unlink()
