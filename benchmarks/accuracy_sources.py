"""The accuracy benchmark's inputs: the pinned releases and their ground truth.

Nothing here runs the scanner: every ground truth is obtained another way (a
runtime trace, the stdlib ``ast``, or a list verified by reading the code).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DONE = ".extracted"  # written last into an extracted release: the extraction finished
LOCATION = re.compile(r"[^\s:]+:\d+")
TRACE_STEPS = {  # the trace's steps, in order, as the report words them
    "import": "importing it",
    "knobs": "reading every knob",
    "driver": "asking for the active driver",
}


class BenchError(Exception):
    """Something the benchmark needs could not run: it exits 2 with this message."""


@dataclass(frozen=True)
class Package:
    """A pinned release, the folder it is imported from, and how its truth is known."""

    name: str
    version: str
    folder: str  # the import folder, relative to the extracted release
    truth: str  # "trace", "envs" or "file"
    traced_prefix: str = ""  # for a trace: the names kept as truth
    traced_expected: int = 0  # for a trace: how many the issue measured


PACKAGES = (
    Package("triton", "3.9.0", "triton", "trace", "TRITON_", 65),
    Package("vllm", "0.33.0", "vllm", "envs"),
    Package("transformers", "5.24.0", "transformers", "file"),
    Package("deepspeed", "0.19.8", "deepspeed", "file"),
    Package("megatron-core", "0.16.1", "megatron", "file"),
)


@dataclass(frozen=True)
class Truth:
    """The names a package really reads, each with where it is read when known."""

    names: dict[str, str | None]  # name -> "path:line" relative to the extracted release
    notes: tuple[str, ...] = field(default=())


def fetch(package: Package, cache: Path) -> Path:
    """The extracted release under ``cache``: downloaded and extracted once."""
    target = cache / f"{package.name}-{package.version}"
    if (target / DONE).is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    archive = _archive(package, cache) or _download(package, cache)
    _extract(archive, target)
    return target


def _archive(package: Package, cache: Path) -> Path | None:
    for stem in sorted({package.name, package.name.replace("-", "_")}):
        prefix = f"{stem}-{package.version}"
        for path in sorted(cache.glob(f"{prefix}*")):
            if path.name == f"{prefix}.tar.gz" or (
                path.name.startswith(f"{prefix}-") and path.suffix == ".whl"
            ):
                return path
    return None


def _download(package: Package, cache: Path) -> Path:
    pin = f"{package.name}=={package.version}"
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", pin]
    done = subprocess.run([*command, "-d", str(cache)], capture_output=True, text=True, check=False)
    archive = _archive(package, cache)
    if done.returncode != 0 or archive is None:
        detail = (done.stderr.strip().splitlines() or ["no wheel or sdist appeared"])[-1]
        raise BenchError(
            f"downloading {pin} failed (pip exited {done.returncode}): {detail}\n"
            f"  fix: check network access and the pip index (python -m pip config list),"
            f" or fetch the file elsewhere and put it in {cache}:"
            f" python -m pip download --no-deps {pin} -d {cache}"
        )
    return archive


def _extract(archive: Path, target: Path) -> None:
    """Unpack into ``target``: a wheel as it is, an sdist without its top folder."""
    scratch = Path(tempfile.mkdtemp(prefix=".extract-", dir=target.parent))
    try:
        if archive.suffix == ".whl":
            with zipfile.ZipFile(archive) as wheel:
                for info in wheel.infolist():
                    path = Path(wheel.extract(info, scratch))
                    if not info.is_dir() and (info.external_attr >> 16) & 0o111:
                        path.chmod(0o755)  # the wheel's tools (ptxas) stay executable
            source = scratch
        else:
            with tarfile.open(archive) as sdist:
                sdist.extractall(scratch, filter="data")
            tops = list(scratch.iterdir())
            source = tops[0] if len(tops) == 1 and tops[0].is_dir() else scratch
        if target.exists():
            shutil.rmtree(target)
        source.chmod(0o755)
        source.rename(target)
        (target / DONE).write_text(f"{archive.name}\n", encoding="utf-8")
    except (OSError, zipfile.BadZipFile, tarfile.TarError) as error:
        raise BenchError(f"extracting {archive} failed: {error}; delete it, run again") from error
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def read_listed(path: Path) -> dict[str, str]:
    """``NAME  # comment`` lines of a truth file: name -> comment."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise BenchError(f"cannot read the truth file {path}: {error}") from error
    names: dict[str, str] = {}
    for line in text.splitlines():
        name, _, comment = line.partition("#")
        if name.strip():
            names[name.strip()] = comment.strip()
    return names


def truth_from_file(path: Path) -> Truth:
    """A hand-verified list: each name with the ``path:line`` that opens its comment."""
    names: dict[str, str | None] = {}
    for name, comment in read_listed(path).items():
        first = comment.split(maxsplit=1)[0] if comment else ""
        names[name] = first if LOCATION.fullmatch(first) else None
    return Truth(names, (f"truth: {len(names)} names listed in {shown(path)}",))


def truth_from_envs(envs: Path, root: Path, exclusions: Path) -> Truth:
    """The keys of the ``environment_variables`` dict in ``envs``, less the listed exclusions."""
    relative = envs.relative_to(root).as_posix()
    keys: dict[str, str | None] = {}
    for node in ast.parse(envs.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        named = any(isinstance(t, ast.Name) and t.id == "environment_variables" for t in targets)
        value = getattr(node, "value", None)
        if named and isinstance(value, ast.Dict):
            for key in value.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    keys[key.value] = f"{relative}:{key.lineno}"
    if not keys:
        raise BenchError(f"{envs} has no environment_variables dict with string keys")
    notes = [f"truth: {len(keys)} keys of environment_variables in {relative}"]
    for name, reason in read_listed(exclusions).items():
        if keys.pop(name, None) is None:
            raise BenchError(f"{shown(exclusions)}: {name} is not a key of {relative}")
        notes.append(f"excluded: {name} ({reason})")
    return Truth(keys, tuple(notes))


def truth_from_trace(package: Package, root: Path, saved: Path) -> Truth:
    """Run the package under the recorder (``accuracy_trace.py``); keep its prefixed names."""
    environment = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/")}
    environment["PYTHONPATH"] = str(root)
    done = subprocess.run(
        [sys.executable, str(HERE / "accuracy_trace.py"), str(root)],
        cwd=root.parent,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        trace = json.loads(done.stdout)
    except json.JSONDecodeError:
        detail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise BenchError(f"the {package.name} trace exited {done.returncode}:\n{detail}") from None
    imported = Path(trace["file"]).resolve()
    if not imported.is_relative_to(root.resolve()):
        raise BenchError(f"the trace imported {package.name} from {imported}, not from {root}")
    saved.write_text(json.dumps(trace, indent=1) + "\n", encoding="utf-8")
    reads = trace["reads"]
    kept = {r["name"]: r["where"] for r in reads if r["name"].startswith(package.traced_prefix)}
    by_step = ", ".join(
        f"{sum(1 for r in reads if r['step'] == step and r['name'] in kept)} {words}"
        for step, words in TRACE_STEPS.items()
    )
    measured = f"the issue measured {package.traced_expected}"
    if len(kept) == package.traced_expected:
        measured = "as the issue measured"
    return Truth(
        kept,
        (
            f"truth: runtime trace, {len(kept)} {package.traced_prefix}* names, {measured}"
            f" (first read while: {by_step})",
            f"trace: {len(reads)} names read in all, saved in {shown(saved)}",
        ),
    )


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it."""
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)
