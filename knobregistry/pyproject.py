"""`[tool.knobs]` in a project's pyproject.toml: the registry it names, and scanner settings.

Light on purpose (no registry, no schema): `knobs scan` reads it too.

```toml
[tool.knobs]
registry = "conf/registry.yaml"       # where commands find the registry
launch_facts = ["MYLAUNCHER_*"]       # more variables the launcher sets
accessors = ["read_knob"]             # more callables that read the variable they name
printed_writes = ['export:(?P<name>\\w+)=(?P<value>.*)']  # lines a launcher prints to export
env_blocks = ["ENV_VARS", "env_vars"]  # keys of YAML mappings that set the environment
```
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.settings import ENV_BLOCKS

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


@dataclass(frozen=True, slots=True)
class ScannerSettings:
    """What a project adds to the scanner's conventions: passed to every scan it runs."""

    launch_facts: tuple[str, ...] = ()  # variable-name globs the launcher sets
    accessors: tuple[str, ...] = ()  # callables that read the variable their argument names
    # Regular expressions (groups ``name``, ``value``) of lines launcher scripts print for
    # their runner to export, besides Primus's ``env.NAME=VALUE``.
    printed_writes: tuple[str, ...] = ()
    # Keys of YAML mappings whose entries set the environment (``ENV_VARS:``); none given:
    # the scanner's own (``scanner.settings.ENV_BLOCKS``).
    env_blocks: tuple[str, ...] = ()

    def merged(self, other: ScannerSettings) -> ScannerSettings:
        """Both settings, ``self``'s first, each pattern or name once."""
        return ScannerSettings(
            launch_facts=tuple(dict.fromkeys((*self.launch_facts, *other.launch_facts))),
            accessors=tuple(dict.fromkeys((*self.accessors, *other.accessors))),
            printed_writes=tuple(dict.fromkeys((*self.printed_writes, *other.printed_writes))),
            env_blocks=tuple(dict.fromkeys((*self.env_blocks, *other.env_blocks))),
        )

    @property
    def blocks(self) -> tuple[str, ...]:
        """The environment mappings' keys a scan takes: those given, else ``ENV_VARS``."""
        return self.env_blocks or ENV_BLOCKS


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
    tool = table.get("tool", {})
    knobs = tool.get("knobs") if isinstance(tool, dict) else None
    if knobs is None:
        return None
    if not isinstance(knobs, dict):
        raise problem(shown, "[tool.knobs] must be a table.")
    return knobs


def settings_of(table: dict[str, Any] | None, shown: str) -> ScannerSettings:
    """The scanner settings of a ``[tool.knobs]`` table (none when it is None)."""
    if table is None:
        return ScannerSettings()
    return ScannerSettings(
        launch_facts=_names(table, "launch_facts", shown),
        accessors=_names(table, "accessors", shown),
        printed_writes=_names(table, "printed_writes", shown),
        env_blocks=_names(table, "env_blocks", shown),
    )


def project_settings(start: Path) -> ScannerSettings:
    """The settings of the nearest pyproject.toml with a ``[tool.knobs]`` table, from
    ``start`` up to the repository root (none when there is no such file).

    Raises PyprojectError when that file cannot be read or its settings are malformed.
    """
    for folder in folders_up(start):
        pyproject = folder / PYPROJECT
        table = tool_table(pyproject)
        if table is not None:
            return settings_of(table, pyproject.as_posix())
    return ScannerSettings()


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


def problem(shown: str, message: str) -> PyprojectError:
    return PyprojectError(shown, message)
