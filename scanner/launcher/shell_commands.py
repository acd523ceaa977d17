"""Commands that set the environment of the program they start from their own command
line: ``env X=1 cmd``, ``docker run -e X=1 img``, ``srun --export=A=1,B,ALL cmd``,
``ray job submit --runtime-env-json='{"env_vars": {"X": "1"}}' -- cmd``.

Each gives the writes it makes, with the argument each sits in; a value that is not
a constant is kept as written, and a variable passed through (``-e X``, ``--export=B``)
is written as ``$X``: the value it has where the command runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from scanner.launcher.shell_syntax import literal, text, unquoted

if TYPE_CHECKING:
    from tree_sitter import Node

_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ASSIGNMENT: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)\Z", re.DOTALL)
# docker run options that take no value (any other option is taken to take one).
_DOCKER_FLAGS: Final = frozenset(
    {
        "--rm",
        "--detach",
        "--interactive",
        "--tty",
        "--privileged",
        "--init",
        "--publish-all",
        "--read-only",
        "--no-healthcheck",
        "--oom-kill-disable",
        "--help",
    }
)
_DOCKER_SHORT: Final = frozenset("ditP")  # -d, -i, -t, -P and their bundles (-it)
_CONTAINER_TOOLS: Final = frozenset({"docker", "podman", "nerdctl"})
_CONTAINER_RUNS: Final = frozenset({"run", "create", "exec"})
_SLURM: Final = frozenset({"srun", "sbatch", "salloc"})
_SLURM_WORDS: Final = frozenset({"ALL", "NONE", "NIL"})  # not variables: what else to export
# srun / sbatch options that take no value (any other option is taken to take one).
_SLURM_FLAGS: Final = frozenset(
    {
        "--exclusive",
        "--pty",
        "-l",
        "--label",
        "-u",
        "--unbuffered",
        "--overlap",
        "-O",
        "--overcommit",
        "-Q",
        "--quiet",
        "-v",
        "--verbose",
        "-K",
        "--kill-on-bad-exit",
        "-X",
        "--disable-status",
        "-H",
        "--hold",
        "--requeue",
        "--no-requeue",
        "--parsable",
        "--test-only",
        "--usage",
        "--help",
    }
)
_ENV_VALUED: Final = frozenset({"-C", "--chdir", "-S", "--split-string"})


@dataclass(frozen=True, slots=True)
class CommandWrite:
    """One variable a command line sets for the program it starts."""

    node: Node  # the argument it is written in
    name: str
    value: str | None  # the value, when it is a constant
    computed: str | None = None  # else the value as written
    removes: bool = False  # env -u NAME


def command_writes(command: str, args: Sequence[Node]) -> Iterator[CommandWrite]:
    """The writes of ``command args...`` (nothing for a command that sets none)."""
    if command == "env":
        yield from _env(args)
    elif command in _CONTAINER_TOOLS and args and text(args[0]) in _CONTAINER_RUNS:
        yield from _container(args[1:])
    elif command in _SLURM:
        yield from _slurm(args)
    elif command == "ray" and [text(a) for a in args[:2]] == ["job", "submit"]:
        yield from _ray_job(args[2:])


def assignment(node: Node, after: str = "") -> CommandWrite | None:
    """``NAME=value`` in one argument (after a prefix such as ``--env=``), or None."""
    source = text(node)
    if not source.startswith(after):
        return None
    found = _ASSIGNMENT.match(source[len(after) :])
    if found is None:
        return None
    name = found[1]
    known = literal(node)
    if known is not None and known.startswith(after) and "=" in known:
        return CommandWrite(node, name, known[len(after) :].split("=", 1)[1])
    return CommandWrite(node, name, None, found[2])


def _env(args: Sequence[Node]) -> Iterator[CommandWrite]:
    at = 0
    while at < len(args):
        arg = args[at]
        word = text(arg)
        if word in ("-u", "--unset") and at + 1 < len(args):
            name = text(args[at + 1])
            if _NAME.match(name):
                yield CommandWrite(args[at + 1], name, None, removes=True)
            at += 2
            continue
        if word.startswith("--unset="):
            name = word.split("=", 1)[1]
            if _NAME.match(name):
                yield CommandWrite(arg, name, None, removes=True)
        elif word in _ENV_VALUED:
            at += 1
        elif not word.startswith("-"):
            found = assignment(arg)
            if found is None:
                return  # the command env starts
            yield found
        at += 1


def _container(args: Sequence[Node]) -> Iterator[CommandWrite]:
    at = 0
    while at < len(args):
        arg = args[at]
        word = text(arg)
        if not word.startswith("-"):
            return  # the image: what follows is the container's command
        if word in ("-e", "--env") and at + 1 < len(args):
            yield from _container_env(args[at + 1])
            at += 2
            continue
        if word.startswith("--env="):
            yield from _container_env(arg, "--env=")
        elif word.startswith("-e") and not word.startswith("--"):
            yield from _container_env(arg, "-e")
        elif "=" not in word and word not in _DOCKER_FLAGS and not _short_flags(word):
            at += 1  # an option's value: --name run1, -v a:b
        at += 1


def _short_flags(word: str) -> bool:
    return not word.startswith("--") and len(word) > 1 and set(word[1:]) <= _DOCKER_SHORT


def _container_env(node: Node, after: str = "") -> Iterator[CommandWrite]:
    found = assignment(node, after)
    if found is not None:
        yield found
        return
    name = text(node)[len(after) :]
    if _NAME.match(name):
        yield CommandWrite(node, name, None, f"${name}")  # passed through


def _slurm(args: Sequence[Node]) -> Iterator[CommandWrite]:
    at = 0
    while at < len(args):
        arg = args[at]
        word = text(arg)
        if word.startswith("--export="):
            yield from _export_list(arg, word[len("--export=") :])
        elif word == "--export" and at + 1 < len(args):
            yield from _export_list(args[at + 1], text(args[at + 1]))
            at += 1
        elif not word.startswith("-"):
            return  # the program or batch script: its own options follow
        elif "=" not in word and word not in _SLURM_FLAGS:
            at += 1  # an option's value: -N 2, --nodes 2
        at += 1


def _export_list(node: Node, items: str) -> Iterator[CommandWrite]:
    """``A=1,B,ALL``: A set to 1, B passed through; ALL and NONE say what else is."""
    known = literal(node)
    if known is not None:
        items = known.split("=", 1)[1] if known.startswith("--export=") else known
    for item in items.split(","):
        name, equals, value = item.partition("=")
        if name in _SLURM_WORDS or not _NAME.match(name):
            continue
        if not equals:
            yield CommandWrite(node, name, None, f"${name}")
        else:
            constant = value if known is not None else unquoted(value)
            yield CommandWrite(node, name, constant, None if constant is not None else value)


def _ray_job(args: Sequence[Node]) -> Iterator[CommandWrite]:
    """``--runtime-env-json JSON``: the job's ``env_vars``, each a constant when the JSON is."""
    for at, arg in enumerate(args):
        word = text(arg)
        if word == "--":
            return  # the entrypoint
        if word.startswith("--runtime-env-json="):
            yield from _env_vars(arg, "--runtime-env-json=")
        elif word == "--runtime-env-json" and at + 1 < len(args):
            yield from _env_vars(args[at + 1])


def _env_vars(node: Node, after: str = "") -> Iterator[CommandWrite]:
    known = literal(node)
    if known is None or not known.startswith(after):
        return  # built at run time: nothing here says what it holds
    try:
        env = json.loads(known[len(after) :]).get("env_vars")
    except (ValueError, AttributeError):
        return
    if not isinstance(env, dict):
        return
    for name, value in env.items():
        if isinstance(name, str) and _NAME.match(name):
            constant = value if isinstance(value, str) else None
            yield CommandWrite(
                node, name, constant, None if constant is not None else json.dumps(value)
            )
