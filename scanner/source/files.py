"""Which files a scan reads, how their bytes become text, and their module names."""

from __future__ import annotations

import io
import os
import re
import stat
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase, translate
from functools import lru_cache
from pathlib import Path

from scanner.conventions import relative_path
from scanner.languages import DOCKERFILES, Language, file_names
from scanner.model import ScanError
from scanner.settings import DEFAULT_INCLUDE, MAX_FILE_BYTES

__all__ = ["DEFAULT_INCLUDE", "DOCKERFILES", "MAX_FILE_BYTES"]

Patterns = tuple[tuple[str, Language], ...]  # file-name glob -> the language it is read as
# The languages of the layers a run's knobs live in, by file name, from the table of
# languages (a CI workflow is a YAML file known by its folder: ``ci_file``).
LANGUAGES: Patterns = file_names()
_SHELLS = (b"sh", b"bash", b"dash", b"ksh", b"zsh")
# Folders nobody means to scan: version control, virtual environments, caches.
SKIPPED_DIRS: tuple[str, ...] = (
    ".*",
    "__pycache__",
    "node_modules",
    "venv",
    "*.egg-info",
)
# Hidden folders that hold a project's CI workflows and the scripts they run: scanned.
CI_DIRS: tuple[str, ...] = (".github", ".gitlab")
# Extensions of files whose first line is never looked at for a shell's shebang.
_NOT_SCRIPTS: frozenset[str] = frozenset(
    {
        *("md", "rst", "txt", "html", "css", "js", "ts", "svg", "xml", "pdf"),  # documents
        *("json", "jsonl", "csv", "tsv", "toml", "cfg", "ini", "lock", "ipynb"),  # data
        *("png", "jpg", "jpeg", "gif", "webp", "ico"),  # images
        *("zip", "gz", "tgz", "bz2", "xz", "whl", "tar"),  # archives
        *("so", "o", "a", "pyc", "pt", "pth", "safetensors", "bin", "npy", "npz", "h5"),
        *("parquet", "c", "cc", "cpp", "cu", "cuh", "h", "hpp", "rs", "go", "java", "proto"),
    }
)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file selected for scanning."""

    path: Path  # as found on disk
    rel: str  # POSIX path relative to the scan root, used in every output
    language: Language = Language.PYTHON

    @property
    def module(self) -> str:
        """The dotted module name, from the enclosing packages."""
        path = self.path.absolute()
        root = None if self.rel.startswith("..") else path.parents[self.rel.count("/")]
        return shown(module_name(path, root))


class SourceError(Exception):
    """The file's bytes cannot be turned into source text."""


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (scanner.conventions.relative_path), as ``shown``
    writes it."""
    return shown(relative_path(path, root))


def shown(name: str) -> str:
    """A file name as every output writes it: valid UTF-8, each byte of the name that is
    not UTF-8 written as ``\\xNN`` (Python's ``backslashreplace``)."""
    if name.isascii():
        return name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return name


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
    languages: Patterns = (),
) -> Iterator[SourceFile | ScanError]:
    """Every file under ``paths`` to scan, sorted by relative path, each once.

    Files named explicitly are scanned whatever their name; files found by
    walking folders must match ``include`` and must not match ``exclude``. A file
    that ``include`` does not name is a shell script when its first line names a shell
    and ``include`` takes shell scripts (``*.sh``), whatever its extension (``.slurm``,
    ``.sbatch``, none). A YAML file where CI workflows live is a ``ci`` file.
    ``languages``: more file-name globs and the language each is read as (taken before
    the scanner's own, and walked as if ``include`` named them).
    """
    wanted = any_glob((*(pattern for pattern, _ in languages), *include))
    shebangs = "*.sh" in include
    found: dict[str, SourceFile | ScanError] = {}
    trees = tuple(os.path.realpath(path) for path in paths if path.is_dir())
    for path in paths:
        rel = relative(path, root)
        if path.is_dir():
            prefix = "" if rel == "." else rel + "/"
            for folder, name in _walk(str(path)):
                if isinstance(name, OSError):
                    folder_rel = shown((prefix + folder).rstrip("/")) or rel
                    found.setdefault(folder_rel + "/", ScanError(folder_rel, _folder_message(name)))
                    continue
                file_rel = prefix + shown(folder + name)
                if exclude and excluded(file_rel, exclude):
                    continue
                file = path / folder / name
                if wanted(name):
                    outside = _linked_outside(file, trees)
                    if outside is not None:
                        found.setdefault(file_rel, ScanError(file_rel, _outside_message(outside)))
                        continue
                    language = language_of(name, file_rel, languages)
                elif (
                    shebangs
                    and _may_be_script(name)
                    and _linked_outside(file, trees) is None
                    and shell_script(file)
                ):
                    language = Language.SHELL
                else:
                    continue
                found.setdefault(file_rel, SourceFile(file, file_rel, language))
        elif path.exists() or path.is_symlink():
            if not excluded(rel, exclude):
                language = language_of(path.name, rel, languages)
                python = language is Language.PYTHON and not path.name.endswith(".py")
                if python and not _configured(path.name, languages) and shell_script(path):
                    language = Language.SHELL
                found.setdefault(rel, SourceFile(path, rel, language))
        else:
            found.setdefault(rel, ScanError(rel, "No such file or folder."))
    for rel in sorted(found):
        yield found[rel]


def _linked_outside(file: Path, trees: Sequence[str]) -> str | None:
    """Where ``file`` leads when it is a symbolic link to a file outside every folder in
    ``trees`` (the folders being scanned); None for any other file. Such a link is not
    read, as a linked folder is not followed: what lies outside the tree (a secret in
    ~/.aws) never reaches a scan's output. A link to what is not a regular file (a device,
    nothing) is left to the reader, which refuses it, saying what it is."""
    if not file.is_symlink():
        return None
    target = os.path.realpath(file)
    if not Path(target).is_file():
        return None
    inside = any(target == tree or target.startswith(tree.rstrip("/") + "/") for tree in trees)
    return None if inside else target


def _outside_message(target: str) -> str:
    return (
        f"A symbolic link to a file outside the folders scanned ({shown(target)}): not read, "
        "as linked folders are not followed; name the file to scan it, or add the link to "
        "scan.exclude."
    )


def _walk(top: str) -> Iterator[tuple[str, str | OSError]]:
    """``(folder relative to top, with a trailing slash or empty; file name)`` pairs, and
    ``(folder, error)`` for a folder that cannot be listed."""
    # Symlinked folders are not followed, so a symlink loop cannot trap the walk.
    failed: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(top, onerror=failed.append):
        while failed:
            yield _below(top, failed.pop(0))
        skipped = any_glob(SKIPPED_DIRS)
        dirnames[:] = sorted(d for d in dirnames if d in CI_DIRS or not skipped(d))
        folder = os.path.relpath(dirpath, top).replace(os.sep, "/")
        folder = "" if folder == "." else folder + "/"
        for name in sorted(filenames):
            yield folder, name
    while failed:
        yield _below(top, failed.pop(0))


def _below(top: str, error: OSError) -> tuple[str, OSError]:
    """The folder an ``os.walk`` error is about, relative to ``top``, with the error."""
    where = os.fsdecode(error.filename) if error.filename is not None else top
    folder = os.path.relpath(where, top).replace(os.sep, "/")
    return ("" if folder == "." else folder + "/"), error


def _folder_message(error: OSError) -> str:
    reason = error.strerror or type(error).__name__
    return f"Cannot read the folder: {reason}; its files are not scanned."


def language_of(name: str, rel: str | None = None, languages: Patterns = ()) -> Language:
    """The language of a file, by its name (``languages`` first, then the scanner's own;
    Python when no name says anything); a YAML file at ``rel`` where CI workflows live is
    ``ci``."""
    for pattern, language in (*languages, *LANGUAGES):
        if fnmatchcase(name, pattern):
            if language is Language.YAML and rel is not None and ci_file(rel):
                return Language.CI
            return language
    return Language.PYTHON


def _configured(name: str, languages: Patterns) -> bool:
    return any(fnmatchcase(name, pattern) for pattern, _ in languages)


def ci_file(rel: str) -> bool:
    """Whether the YAML file at ``rel`` is a CI definition: a GitHub Actions workflow
    (``.github/workflows/``) or composite action (``.github/actions/**/action.yml``), or
    GitLab CI's ``.gitlab-ci.yml`` and the files under ``.gitlab/``."""
    parts = rel.split("/")
    name = parts[-1]
    if name in (".gitlab-ci.yml", ".gitlab-ci.yaml") or ".gitlab" in parts[:-1]:
        return True
    if ".github" not in parts[:-1]:
        return False
    below = parts[parts.index(".github") + 1 : -1]
    if below[:1] == ["workflows"]:
        return True
    return below[:1] == ["actions"] and name in ("action.yml", "action.yaml")


@lru_cache(maxsize=64)
def any_glob(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a name matches any of ``patterns`` (as ``fnmatchcase``), in one regex match:
    a scan asks it of every file name in the tree."""
    if not patterns:
        return lambda name: False
    match = re.compile("|".join(f"(?:{translate(p)})" for p in patterns)).match
    return lambda name: match(name) is not None


def _may_be_script(name: str) -> bool:
    """Whether a file not included by name may still be a shell script: not a document,
    data or a binary by its extension."""
    return "." not in name or name.rsplit(".", 1)[1].lower() not in _NOT_SCRIPTS


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


# A scan root that holds one of these is a project's checkout: where its imports start,
# never a package of its own, whatever ``__init__.py`` it holds (hao-ai-lab/FastVideo
# 2f3d4074 has /__init__.py beside /pyproject.toml, and its modules import
# ``fastvideo.envs``: fastvideo/attention/selector.py:14).
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


def module_name(path: Path, root: Path | None = None) -> str:
    """The dotted module name of ``path``, climbing while folders are packages, and not
    past ``root`` (the scan root) where that is a project's checkout."""
    stem = path.stem
    checkout = root if root is not None and _checkout(root) else None
    if path.parent == checkout:
        return stem  # its __init__.py is no package an import names
    package = _package_of(path.parent, checkout)
    if stem == "__init__":
        return package or path.parent.name
    return f"{package}.{stem}" if package else stem


@lru_cache(maxsize=64)
def _checkout(root: Path) -> bool:
    return any((root / name).is_file() for name in PROJECT_FILES)


@lru_cache(maxsize=4096)
def _package_of(folder: Path, checkout: Path | None = None) -> str:
    if folder == checkout or not (folder / "__init__.py").is_file():
        return ""
    parent = _package_of(folder.parent, checkout) if folder.parent != folder else ""
    return f"{parent}.{folder.name}" if parent else folder.name


def read_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes, or SourceError for a file that cannot or should not be read.

    Only a regular file is read (a FIFO would block, a device never end), and never
    more than ``max_bytes`` of it, whatever its size said when it was opened.
    """
    try:
        kind = _not_regular(path.stat().st_mode)
        if kind is None:
            # O_NONBLOCK: should the file become a FIFO after the check, opening it
            # does not wait for a writer (and fstat below refuses it).
            fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise SourceError(_os_message(exc)) from None
    if kind is not None:
        raise SourceError(f"Not a regular file ({kind}); only regular files are read.")
    try:
        status = os.fstat(fd)
        kind = _not_regular(status.st_mode)
        if kind is not None:
            raise SourceError(f"Not a regular file ({kind}); only regular files are read.")
        if status.st_size > max_bytes:
            raise SourceError(_too_big(f"{status.st_size:,} bytes", max_bytes))
        chunks: list[bytes] = []
        total = 0
        # The size it said first (one buffer of the right size), then whatever it grew by.
        want = status.st_size + 1
        while chunk := os.read(fd, min(want, max_bytes + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            want = 64 * 1024
            if total > max_bytes:
                raise SourceError(_too_big("longer than its size said", max_bytes))
        return b"".join(chunks)
    except OSError as exc:
        raise SourceError(_os_message(exc)) from None
    finally:
        os.close(fd)


def _too_big(size: str, max_bytes: int) -> str:
    return (
        f"File is {size}, over the {max_bytes:,}-byte limit; "
        "exclude it with --exclude if it is generated."
    )


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


# Byte-order marks of encodings no Python file, shell script or YAML config here is in.
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def unsupported_encoding(data: bytes) -> str | None:
    """Why ``data`` cannot be read as text, for a file whose byte-order mark says UTF-16
    or UTF-32 (its bytes never hold an ASCII word, so no filter on words would see it)."""
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            return (
                f"The file is {encoding} (it starts with a {encoding} byte-order mark), an "
                "encoding that is not supported (Python source must be ASCII-compatible); "
                "convert it to UTF-8."
            )
    return None


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
