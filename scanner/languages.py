"""The languages the scanner reads, by name: the layers a run's knobs live in."""

from __future__ import annotations

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


def known_languages() -> str:
    """The languages' names, for a message: ``python, shell, yaml, dockerfile, ci``."""
    return ", ".join(language.value for language in Language)


def language_named(name: str) -> Language | None:
    """The language called ``name``; None when the scanner reads no such language."""
    try:
        return Language(name)
    except ValueError:
        return None
