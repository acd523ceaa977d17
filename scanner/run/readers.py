"""The reader registry: one entry per language, with its prefilter, its reader and the word
the table's "read in" column shows. A language without an entry cannot be configured."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType

from scanner.accessors import prefilter
from scanner.languages import Language
from scanner.model import ScanError
from scanner.run.work import (
    FileOutcome,
    FileTask,
    LauncherAnalysis,
    Options,
    launcher_outcome,
    python_outcome,
)
from scanner.settings import Settings
from scanner.source.files import SourceError, read_bytes, unsupported_encoding
from scanner.source.own_files import written_by_knobs

Wanted = Callable[[bytes], bool]


@dataclass(frozen=True, slots=True)
class Reader:
    """How the files of one language are read."""

    language: Language
    display: str  # the "read in" column's word for the layer (py, sh, yaml, ...)
    # The prefilter, for these settings: whether a file's bytes can hold a read (a file
    # whose bytes cannot is never parsed).
    wanted: Callable[[Settings], Wanted]
    read: Callable[[FileTask, Options, bytes], FileOutcome]  # its outcome, from its bytes


def _every_file(settings: Settings) -> Wanted:
    """Every launcher file is read: `unset X`, `[[ -v X ]]` need no `$`, and a YAML file
    with no read still gives its keys' types."""
    return _yes


def _yes(data: bytes) -> bool:
    return True


def _python_prefilter(settings: Settings) -> Wanted:
    return prefilter(settings.accessors)


def _shell(task: FileTask, settings: Settings, data: bytes, text: str) -> FileOutcome:
    from scanner.launcher.sbatch import with_directives
    from scanner.launcher.shell import TOO_DEEP, analyse_shell

    try:
        shell = analyse_shell(task.rel, data, settings, task.path.absolute())
    except RecursionError:
        return FileOutcome(rel=task.rel, error=ScanError(task.rel, TOO_DEEP))
    result = with_directives(shell.result, task.rel, text, settings)
    return FileOutcome(rel=task.rel, result=result, error=shell.error, depends=shell.depends)


def _yaml(task: FileTask, settings: Settings, data: bytes, text: str) -> FileOutcome:
    from scanner.launcher.yaml_config import analyse_yaml

    config = analyse_yaml(task.rel, text, settings)
    return FileOutcome(rel=task.rel, result=config.result, error=config.error)


def _dockerfile(task: FileTask, settings: Settings, data: bytes, text: str) -> FileOutcome:
    from scanner.launcher.dockerfile import analyse_dockerfile

    return FileOutcome(rel=task.rel, result=analyse_dockerfile(task.rel, text, settings))


def _ci(task: FileTask, settings: Settings, data: bytes, text: str) -> FileOutcome:
    from scanner.launcher.workflows import analyse_ci

    ci = analyse_ci(task.rel, text, settings)
    return FileOutcome(rel=task.rel, result=ci.result, error=ci.error)


def _launcher(language: Language, display: str, analysis: LauncherAnalysis) -> Reader:
    own = partial(_not_own, analysis)
    return Reader(language, display, _every_file, partial(launcher_outcome, own))


def _not_own(
    analysis: LauncherAnalysis, task: FileTask, settings: Settings, data: bytes, text: str
) -> FileOutcome:
    """``analysis``, except for a file knobs wrote (a registry, an export): it holds
    nothing to read."""
    if written_by_knobs(data):
        return FileOutcome(rel=task.rel)
    return analysis(task, settings, data, text)


READERS: Mapping[Language, Reader] = MappingProxyType(
    {
        Language.PYTHON: Reader(Language.PYTHON, "py", _python_prefilter, python_outcome),
        Language.SHELL: _launcher(Language.SHELL, "sh", _shell),
        Language.YAML: _launcher(Language.YAML, "yaml", _yaml),
        Language.DOCKERFILE: _launcher(Language.DOCKERFILE, "docker", _dockerfile),
        Language.CI: _launcher(Language.CI, "ci", _ci),
    }
)


def display(language: Language) -> str:
    """The word the "read in" column shows for ``language``."""
    return READERS[language].display


def process(task: FileTask, options: Options, data: bytes | None = None) -> FileOutcome:
    """The outcome of one file, by its language's reader: its wrappers and the sites,
    dynamic reads and writes it holds, or its error."""
    if data is None:
        try:
            data = read_bytes(task.path, options.settings.max_file_bytes)
        except SourceError as exc:
            return FileOutcome(rel=task.rel, error=ScanError(task.rel, str(exc)))
    problem = unsupported_encoding(data)
    if problem is not None:
        return FileOutcome(rel=task.rel, error=ScanError(task.rel, problem))
    return READERS[task.language].read(task, options, data)
