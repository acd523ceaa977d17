"""`knobs check --format github`: GitHub Actions workflow commands that annotate the diff."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Severity
from knobregistry.registry import RegistryProblem, format_key_path

if TYPE_CHECKING:
    from knobregistry.check.run import CheckResult

_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message, as the Actions runner's toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (file, title): also ':' and ','."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, path: str, line: int, column: int, title: str, message: str) -> str:
    props = [f"file={escape_property(path)}"]
    if line > 0:
        props.append(f"line={line}")
        if column > 0:
            props.append(f"col={column}")
    props.append(f"title={escape_property(title)}")
    return f"::{kind} {','.join(props)}::{escape_data(message)}"


def annotation(diagnostic: Diagnostic) -> str:
    """One `::error file=...,line=...,col=...,title=KNB001::message` command; the fix follows."""
    message = diagnostic.message
    if diagnostic.fix:
        message += "\n" + diagnostic.fix
    return _command(
        _COMMANDS[diagnostic.severity],
        diagnostic.path,
        diagnostic.line,
        diagnostic.column,
        diagnostic.code,
        message,
    )


def render_check_github(result: CheckResult) -> str:
    """One workflow command per finding; nothing when the check is clean."""
    return "".join(annotation(d) + "\n" for d in result.diagnostics)


def render_registry_problems_github(problems: Iterable[RegistryProblem]) -> str:
    """A registry that does not load, as annotations on the registry file."""
    out = []
    for problem in problems:
        key = format_key_path(problem.key_path)
        message = f"{key}: {problem.message}" if key else problem.message
        out.append(
            _command("error", problem.path, problem.line, problem.column, "registry", message)
        )
    return "".join(line + "\n" for line in out)
