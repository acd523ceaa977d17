"""`[tool.knobs]` in a project's pyproject.toml: the registry it names, and scanner settings.

Light on purpose (no registry, no schema): `knobs scan` reads it too.

```toml
[tool.knobs]
registry = "conf/registry.yaml"       # where commands find the registry
launch_facts = ["MYLAUNCHER_*"]       # more variables the launcher sets
accessors = ["read_knob"]             # more callables that read the variable they name
printed_writes = ['export:(?P<name>\\w+)=(?P<value>.*)']  # lines a launcher prints to export
env_blocks = ["ENV_VARS", "env_vars"]  # keys of YAML mappings that set the environment
languages = {"*.slurm" = "shell", "*.cfg" = "yaml"}  # more file names, and how to read them
```
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from knobregistry._io.digits import LONG_RUN, MAX_DIGITS
from scanner import Language, Settings
from scanner.languages import known_languages, language_named

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

PYPROJECT = "pyproject.toml"
REPOSITORY_MARKERS = (".git", ".hg")


class PyprojectError(Exception):
    """A pyproject.toml that cannot be read, or whose ``[tool.knobs]`` is malformed."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


# What a project that sets nothing gives: no include of its own, no ENV_VARS-like keys
# (``knobregistry.project.scan_for.settings_for`` puts the scanner's own in).
_UNSET = Settings(include=(), env_blocks=())


def folders_up(start: Path) -> Iterator[Path]:
    """``start`` and its parents, up to the repository root (the first folder holding
    ``.git`` or ``.hg``) or the file system's root."""
    origin = start.absolute()
    for folder in (origin, *origin.parents):
        yield folder
        if any((folder / marker).exists() for marker in REPOSITORY_MARKERS):
            return


def tool_table(pyproject: Path) -> dict[str, Any] | None:
    """The ``[tool.knobs]`` table of ``pyproject`` (None: no such file, or no such table).

    Raises PyprojectError for a file that cannot be read as TOML.
    """
    if not pyproject.is_file():
        return None
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        message = f"cannot read it to look for [tool.knobs]: {exc}."
        raise problem(pyproject.as_posix(), message) from exc
    return tool_table_of(text, pyproject.as_posix())


def tool_table_of(text: str, shown: str) -> dict[str, Any] | None:
    """The ``[tool.knobs]`` table of a pyproject.toml's text; ``shown`` names it in errors."""
    try:
        table: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise problem(shown, f"cannot read it to look for [tool.knobs]: {exc}.") from exc
    except ValueError:  # an integer of more than 4,300 digits: tomllib converts it with int()
        found = LONG_RUN.search(text)
        line = text.count("\n", 0, found.start()) + 1 if found else 1
        raise problem(
            shown,
            f"cannot read it to look for [tool.knobs]: line {line} holds a number of more than "
            f"{MAX_DIGITS} digits, which knobs does not read.",
        ) from None
    tool = table.get("tool", {})
    knobs = tool.get("knobs") if isinstance(tool, dict) else None
    if knobs is None:
        return None
    if not isinstance(knobs, dict):
        raise problem(shown, "[tool.knobs] must be a table.")
    return knobs


def settings_of(table: dict[str, Any] | None, shown: str) -> Settings:
    """The scanner settings of a ``[tool.knobs]`` table (none when it is None); an empty
    ``env_blocks`` means the scanner's own."""
    if table is None:
        return _UNSET
    return Settings(
        include=(),
        launch_facts=_names(table, "launch_facts", shown),
        accessors=_names(table, "accessors", shown),
        printed_writes=_names(table, "printed_writes", shown),
        env_blocks=_names(table, "env_blocks", shown),
        languages=_languages(table, shown),
    )


def project_settings(start: Path) -> Settings:
    """The settings of the nearest pyproject.toml with a ``[tool.knobs]`` table, from
    ``start`` up to the repository root (none when there is no such file).

    Raises PyprojectError when that file cannot be read or its settings are malformed.
    """
    for folder in folders_up(start):
        pyproject = folder / PYPROJECT
        table = tool_table(pyproject)
        if table is not None:
            return settings_of(table, pyproject.as_posix())
    return _UNSET


_EXAMPLES = {
    "launch_facts": '["MYLAUNCHER_*"]',
    "accessors": '["read_knob"]',
    "printed_writes": "['export:(?P<name>\\w+)=(?P<value>.*)']",
    "env_blocks": '["ENV_VARS"]',
}


def _names(table: dict[str, Any], key: str, shown: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise problem(
            shown, f"[tool.knobs] {key} must be a list of strings, such as {_EXAMPLES[key]}."
        )
    if key == "accessors":
        bad = [v for v in value if not v.isidentifier()]
        if bad:
            raise problem(
                shown,
                f"[tool.knobs] accessors: '{bad[0]}' is not a name; give the name the callable "
                "is called by, without its module (read_knob).",
            )
    if key == "printed_writes":
        for pattern in value:
            try:
                groups = re.compile(pattern).groupindex
            except re.error as exc:
                raise problem(
                    shown,
                    f"[tool.knobs] printed_writes: '{pattern}' is not a regular expression: {exc}.",
                ) from None
            if not {"name", "value"} <= set(groups):
                raise problem(
                    shown,
                    f"[tool.knobs] printed_writes: '{pattern}' needs the groups (?P<name>...) "
                    "and (?P<value>...).",
                )
    return tuple(value)


def _languages(table: dict[str, Any], shown: str) -> tuple[tuple[str, Language], ...]:
    """``languages = {"*.slurm" = "shell"}``: file-name globs, each with the language its
    files are read as; a language the scanner does not read is refused."""
    value = table.get("languages", {})
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k and isinstance(v, str) for k, v in value.items()
    ):
        raise problem(
            shown,
            "[tool.knobs] languages must be a table of file-name globs and language names, "
            'such as {"*.slurm" = "shell"}.',
        )
    found: list[tuple[str, Language]] = []
    for pattern, name in value.items():
        language = language_named(name)
        if language is None:
            raise problem(
                shown,
                f"[tool.knobs] languages: '{name}' (for '{pattern}') is not a language knobs "
                f"reads; use one of {known_languages()}.",
            )
        found.append((pattern, language))
    return tuple(found)


def problem(shown: str, message: str) -> PyprojectError:
    return PyprojectError(shown, message)
