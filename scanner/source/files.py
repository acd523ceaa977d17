"""Which files a scan reads, how their bytes become text, and their module names."""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

from scanner.model import ScanError

DEFAULT_INCLUDE: tuple[str, ...] = ("*.py", "*.sh", "*.bash", "*.yaml", "*.yml")
# The languages of the three layers a run's knobs live in, by file name.
LANGUAGES: tuple[tuple[str, str], ...] = (
    ("*.py", "python"),
    ("*.pyi", "python"),
    ("*.sh", "shell"),
    ("*.bash", "shell"),
    ("*.yaml", "yaml"),
    ("*.yml", "yaml"),
)
_SHELLS = (b"sh", b"bash", b"dash", b"ksh", b"zsh")
# Folders nobody means to scan: version control, virtual environments, caches.
SKIPPED_DIRS: tuple[str, ...] = (
    ".*",
    "__pycache__",
    "node_modules",
    "venv",
    "*.egg-info",
)
MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file selected for scanning."""

    path: Path  # as found on disk
    rel: str  # POSIX path relative to the scan root, used in every output
    language: str = "python"  # "python", "shell" or "yaml"

    @property
    def module(self) -> str:
        """The dotted module name, from the enclosing packages."""
        return module_name(self.path.absolute())


class SourceError(Exception):
    """The file's bytes cannot be turned into source text."""


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` as a POSIX string (with ``..`` when outside)."""
    return Path(os.path.relpath(path.absolute(), root.absolute())).as_posix()


def excluded(rel: str, patterns: Sequence[str]) -> bool:
    """Whether ``rel`` matches an exclude glob.

    As in ``.gitignore``: a pattern without ``/`` matches a file or folder name
    at any depth (``_triton_v1``, ``test_*.py``); a trailing ``/`` restricts it
    to folders (``*gluon*/``); a pattern with ``/`` inside matches the relative
    path or a folder above it (``pkg/legacy``, ``pkg/*/gen``).
    """
    parts = rel.split("/")
    for raw in patterns:
        folders_only = raw.endswith("/")
        pattern = raw.rstrip("/")
        if not pattern:
            continue
        if folders_only and "/" not in pattern:
            if any(fnmatchcase(part, pattern) for part in parts[:-1]):
                return True
        elif "/" in pattern:
            pattern = pattern.removeprefix("./")
            if fnmatchcase(rel, pattern) or fnmatchcase(rel, pattern + "/*"):
                return True
        elif any(fnmatchcase(part, pattern) for part in parts):
            return True
    return False


def iter_files(
    paths: Sequence[Path],
    *,
    root: Path,
    include: Sequence[str],
    exclude: Sequence[str],
) -> Iterator[SourceFile | ScanError]:
    """Every file under ``paths`` to scan, sorted by relative path, each once.

    Files named explicitly are scanned whatever their name; files found by
    walking folders must match ``include`` and must not match ``exclude``. A file
    with no extension is a shell script when its first line names a shell and
    ``include`` takes shell scripts (``*.sh``).
    """
    shebangs = "*.sh" in include
    found: dict[str, SourceFile | ScanError] = {}
    for path in paths:
        rel = relative(path, root)
        if path.is_dir():
            prefix = "" if rel == "." else rel + "/"
            for folder, name in _walk(str(path)):
                file_rel = prefix + folder + name
                if exclude and excluded(file_rel, exclude):
                    continue
                if any(fnmatchcase(name, p) for p in include):
                    language = language_of(name)
                elif shebangs and "." not in name and shell_script(path / folder / name):
                    language = "shell"
                else:
                    continue
                found.setdefault(file_rel, SourceFile(path / folder / name, file_rel, language))
        elif path.exists() or path.is_symlink():
            if not excluded(rel, exclude):
                language = language_of(path.name)
                if language == "python" and not path.name.endswith(".py") and shell_script(path):
                    language = "shell"
                found.setdefault(rel, SourceFile(path, rel, language))
        else:
            found.setdefault(rel, ScanError(rel, "No such file or folder."))
    for rel in sorted(found):
        yield found[rel]


def _walk(top: str) -> Iterator[tuple[str, str]]:
    """``(folder relative to top, with a trailing slash or empty; file name)`` pairs."""
    # Symlinked folders are not followed, so a symlink loop cannot trap the walk.
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(
            d for d in dirnames if not any(fnmatchcase(d, p) for p in SKIPPED_DIRS)
        )
        folder = os.path.relpath(dirpath, top).replace(os.sep, "/")
        folder = "" if folder == "." else folder + "/"
        for name in sorted(filenames):
            yield folder, name


def language_of(name: str) -> str:
    """The language of a file, by its name (Python when the name says nothing)."""
    for pattern, language in LANGUAGES:
        if fnmatchcase(name, pattern):
            return language
    return "python"


def shell_script(path: Path) -> bool:
    """Whether the file's first line is a shebang naming a POSIX shell or bash."""
    try:
        if not path.is_file():  # a FIFO or a device would block or never end
            return False
        with path.open("rb") as handle:
            head = handle.read(128)
    except OSError:
        return False
    if not head.startswith(b"#!"):
        return False
    words = head[2:].split(b"\n", 1)[0].split()
    if not words:
        return False
    program = words[0].rsplit(b"/", 1)[-1]
    if program == b"env" and len(words) > 1:
        program = words[1]
    return program in _SHELLS


def module_name(path: Path) -> str:
    """The dotted module name of ``path``, climbing while folders are packages."""
    stem = path.stem
    package = _package_of(path.parent)
    if stem == "__init__":
        return package or path.parent.name
    return f"{package}.{stem}" if package else stem


@lru_cache(maxsize=4096)
def _package_of(folder: Path) -> str:
    if not (folder / "__init__.py").is_file():
        return ""
    parent = _package_of(folder.parent) if folder.parent != folder else ""
    return f"{parent}.{folder.name}" if parent else folder.name


def read_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes, or SourceError for a file that cannot or should not be read."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SourceError(_os_message(exc)) from None
    if size > max_bytes:
        raise SourceError(
            f"File is {size:,} bytes, over the {max_bytes:,}-byte limit; "
            "exclude it with --exclude if it is generated."
        )
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SourceError(_os_message(exc)) from None


def decode_source(data: bytes) -> str:
    """Decode in the encoding the file declares (PEP 263), UTF-8 when it declares none."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SourceError(f"Bad encoding declaration: {exc}.") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        declared = "declared" if encoding not in ("utf-8", "utf-8-sig") else "default"
        raise SourceError(
            f"Cannot decode byte 0x{data[exc.start]:02x} on line {line} as {encoding} "
            f"(the {declared} encoding); add a '# -*- coding: ... -*-' line "
            "naming the file's encoding, or convert it to UTF-8."
        ) from None


def _os_message(exc: OSError) -> str:
    reason = exc.strerror or type(exc).__name__
    return f"Cannot read the file: {reason}."
