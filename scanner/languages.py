"""The languages the scanner reads, by name: the layers a run's knobs live in, as a table.

Each row of ``LANGUAGES`` says what a language is: the file names read as it, the word
the table's "read in" column shows, and its reader (named ``module:function``, imported
when a file of it is first read: see scanner.run.readers). A new launcher language is its
member here, its row, its reader's module and its test.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Language(str, Enum):
    """A language the scanner reads. Its value is what outputs and the cache write."""

    PYTHON = "python"
    SHELL = "shell"  # launcher scripts, by name or by their first line
    YAML = "yaml"  # configs that interpolate the environment (``${VAR:default}``)
    DOCKERFILE = "dockerfile"
    CI = "ci"  # CI workflows: YAML files where CI definitions live

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One language of the table."""

    language: Language
    display: str  # the "read in" column's word for the layer (py, sh, yaml, ...)
    names: tuple[str, ...]  # file-name globs read as it, tried in the table's order
    not_scanned: tuple[str, ...] = ()  # of ``names``, those a scan does not include by default
    # Its reader, ``module:function`` taking (rel, data, text, settings, path) and giving a
    # scanner.model.LauncherRead; None for Python, which scanner.run.work reads (wrappers,
    # narrowing, the prefilter).
    reader: str | None = None


DOCKERFILES: tuple[str, ...] = ("Dockerfile", "Dockerfile.*", "Dockerfile_*", "*.Dockerfile")
LANGUAGES: tuple[Row, ...] = (
    Row(language=Language.PYTHON, display="py", names=("*.py", "*.pyi"), not_scanned=("*.pyi",)),
    Row(
        language=Language.SHELL,
        display="sh",
        names=("*.sh", "*.bash"),
        reader="scanner.launcher.shell:read_shell",
    ),
    Row(
        language=Language.YAML,
        display="yaml",
        names=("*.yaml", "*.yml"),
        reader="scanner.launcher.yaml_config:read_yaml",
    ),
    Row(
        language=Language.DOCKERFILE,
        display="docker",
        names=DOCKERFILES,
        reader="scanner.launcher.dockerfile:read_dockerfile",
    ),
    # A YAML file known by its folder (scanner.source.files.ci_file), so no names of its own.
    Row(language=Language.CI, display="ci", names=(), reader="scanner.launcher.workflows:read_ci"),
)


def file_names() -> tuple[tuple[str, Language], ...]:
    """Each file-name glob with the language it is read as, in the table's order."""
    return tuple((name, row.language) for row in LANGUAGES for name in row.names)


def scanned_names() -> tuple[str, ...]:
    """The file-name globs a scan includes by default."""
    return tuple(n for row in LANGUAGES for n in row.names if n not in row.not_scanned)


def known_languages() -> str:
    """The languages' names, for a message: ``python, shell, yaml, dockerfile, ci``."""
    return ", ".join(language.value for language in Language)


def language_named(name: str) -> Language | None:
    """The language called ``name``; None when the scanner reads no such language."""
    try:
        return Language(name)
    except ValueError:
        return None
