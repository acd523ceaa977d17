"""The GitHub runner's reading of a `$GITHUB_ENV` file, on Linux (for tests).

A transcription of the rules of actions/runner's SetEnvFileCommand
(src/Runner.Worker/FileCommandManager.cs): the file is UTF-8 text, lines end at
`\\n`; an empty line is skipped; `NAME=value` when `=` comes before any `<<`,
else `NAME<<DELIMITER`, whose value is the text from the next line up to the
newline before the first line equal to DELIMITER.
"""

from __future__ import annotations


class GithubEnvError(ValueError):
    """A file the runner would reject."""


def _line(text: str, index: int) -> tuple[str | None, int, int]:
    """The line at ``index``, the index after its newline, and the newline's length."""
    if index >= len(text):
        return None, index, 0
    end = text.find("\n", index)
    if end < 0:
        return text[index:], len(text), 0
    return text[index:end], end + 1, 1


def read_github_env(text: str) -> dict[str, str]:
    """The variables the runner sets from ``text``."""
    values: dict[str, str] = {}
    line, index, _ = _line(text, 0)
    while line is not None:
        if line:
            equals, heredoc = line.find("="), line.find("<<")
            if equals >= 0 and (heredoc < 0 or equals < heredoc):
                name, _, value = line.partition("=")
                values[name] = value
            elif heredoc >= 0:
                name, _, delimiter = line.partition("<<")
                if not name or not delimiter:
                    raise GithubEnvError(f"invalid heredoc line {line!r}")
                start = end = index
                current, index, newline = _line(text, index)
                while current != delimiter:
                    if current is None:
                        raise GithubEnvError(f"no delimiter line {delimiter!r}")
                    end = index - newline
                    current, index, newline = _line(text, index)
                values[name] = text[start:end] if end > start else ""
            else:
                raise GithubEnvError(f"invalid line {line!r}")
        line, index, _ = _line(text, index)
    return values
