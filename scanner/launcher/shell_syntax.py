"""The bash syntax tree (tree-sitter's bash grammar) as the shell analysis needs it.

Words are evaluated here: a word made of literal text and expansions of one
variable is a function of that variable's value; anything else (command
substitution, another variable) is not known statically.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# Operators of ${N<op>word} that give ``word`` when N is unset (":" forms: also when empty).
DEFAULTING: Final = frozenset({":-", "-", ":=", "="})
REQUIRING: Final = frozenset({":?", "?"})
ALTERNATIVE: Final = frozenset({":+", "+"})

# Variables bash itself sets or maintains: never knobs.
SHELL_VARIABLES: Final = frozenset(
    {
        "BASH",
        "BASHOPTS",
        "BASHPID",
        "BASH_ARGC",
        "BASH_ARGV",
        "BASH_COMMAND",
        "BASH_LINENO",
        "BASH_REMATCH",
        "BASH_SOURCE",
        "BASH_SUBSHELL",
        "BASH_VERSINFO",
        "BASH_VERSION",
        "COLUMNS",
        "DIRSTACK",
        "EPOCHREALTIME",
        "EPOCHSECONDS",
        "EUID",
        "FUNCNAME",
        "GROUPS",
        "HOSTTYPE",
        "IFS",
        "LINENO",
        "LINES",
        "MACHTYPE",
        "OLDPWD",
        "OPTARG",
        "OPTERR",
        "OPTIND",
        "OSTYPE",
        "PIPESTATUS",
        "PPID",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PWD",
        "RANDOM",
        "REPLY",
        "SECONDS",
        "SHELLOPTS",
        "SHLVL",
        "SRANDOM",
        "UID",
    }
)


@cache
def parser() -> Parser:
    """The bash parser (loaded on the first shell file of a scan)."""
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def named(node: Node) -> list[Node]:
    return [c for c in node.children if c.is_named]


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node below it, in document order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def first_error(root: Node) -> Node | None:
    """The first ERROR or MISSING node of a tree, in document order."""
    if not root.has_error:
        return None
    for node in walk(root):
        if node.type == "ERROR" or node.is_missing:
            return node
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Expansion:
    """``$N`` or ``${N<op>word}``: the variable, the operator and the word after it."""

    node: Node
    name: str | None  # None: a positional or special parameter ($1, $@, $?)
    operator: str = ""  # ":-", ":=", ":?", ":+", "#", "%", ... ("" for $N and ${N})
    word: Node | None = None
    indirect: bool = False  # ${!N}: the variable named by N's value
    length: bool = False  # ${#N}
    default: str | None = None  # the default, when it comes from an earlier X=${X:-d}
    # Where the text between the operator and the closing brace starts and ends (bytes).
    span: tuple[int, int] | None = None
    quoted: bool | None = None  # inside double quotes (None: not known)
    # The file's own bytes between two offsets of the parsed text, where a repair changed
    # that text (``Script.original``); None: the parsed text is the file's.
    original: Callable[[int, int], bytes] | None = field(default=None, compare=False)

    @property
    def written(self) -> str | None:
        """The text between the operator and the closing brace, as the script spells it."""
        if self.span is None:
            return None
        if self.original is not None:
            return self.original(*self.span).decode("utf-8", "replace")
        start = self.node.start_byte
        source = self.node.text or b""
        return source[self.span[0] - start : self.span[1] - start].decode("utf-8", "replace")

    def fallback(self) -> str | None:
        """The word a defaulting operator gives, as a constant (None when it is not one)."""
        if self.default is not None:
            return self.default
        written = self.written
        if written is None:
            return literal(self.word)
        if written.startswith("~"):
            return None  # a tilde expands
        if self.quoted is not None:
            return unquoted(written, inside=self.quoted)
        if "\\" in written or "'" in written:
            # One thing in "${X:-...}", another outside double quotes: not known here.
            return None
        known = literal(self.word)
        return known if known is not None else unquoted(written)

    def computed(self) -> str | None:
        """A defaulting operator's word as written when it is computed at run time
        (``${HOME}/out``, ``$(nproc)``), else None."""
        if self.operator not in DEFAULTING or self.fallback() is not None:
            return None
        return self.written


def expansion(
    node: Node,
    quoted: bool | None = None,
    original: Callable[[int, int], bytes] | None = None,
) -> Expansion:
    """The parts of an ``expansion`` or ``simple_expansion`` node; ``quoted``: whether it
    sits inside double quotes, when the caller knows; ``original``: the file's own bytes
    where a repair changed the parsed text."""
    name: str | None = None
    operator = ""
    word: Node | None = None
    indirect = length = False
    seen_name = False
    after: int | None = None  # where the operator ends
    before: int | None = None  # where the closing brace starts
    for child in node.children:
        kind = child.type
        if kind == "}":
            before = child.start_byte
        if kind == "variable_name" and not seen_name:
            name, seen_name = text(child), True
        elif kind in ("special_variable_name", "subscript") and not seen_name:
            seen_name = True
            if kind == "subscript":
                inner = child.child_by_field_name("name")
                name = text(inner) if inner is not None else None
        elif not child.is_named and not seen_name:
            indirect = indirect or kind == "!"
            length = length or kind == "#"
        elif seen_name and not child.is_named and kind not in ("}", "${"):
            if not operator:
                operator, after = kind, child.end_byte
        elif seen_name and child.is_named and word is None:
            word = child
    span = (after, before) if after is not None and before is not None and before >= after else None
    return Expansion(
        node=node,
        name=name,
        operator=operator,
        word=word,
        indirect=indirect,
        length=length,
        span=span,
        quoted=quoted,
        original=original,
    )


def unquoted(word: str, *, inside: bool = False) -> str | None:
    """A word's value when it expands nothing (its quotes removed, its escapes applied);
    None when it holds an expansion, a command substitution or a leading tilde.
    ``inside``: the word is the default of a ``"${X:-...}"`` in double quotes, where a
    single quote is a character and a backslash escapes only ``$`"\\`` and a newline."""
    if word.startswith("~"):
        return None
    if inside:
        return _unquoted_inside(word)
    out: list[str] = []
    quote = ""
    at, size = 0, len(word)
    while at < size:
        char = word[at]
        if quote == "'":
            if char == "'":
                quote = ""
            else:
                out.append(char)
        elif char == "\\":
            if at + 1 == size:
                return None
            at += 1
            if quote and word[at] not in '$`"\\\n':
                out.append(char)
            out.append(word[at])
        elif char in "$`":
            return None
        elif quote == '"':
            if char == '"':
                quote = ""
            else:
                out.append(char)
        elif char in "'\"":
            quote = char
        else:
            out.append(char)
        at += 1
    return None if quote else "".join(out)


def _unquoted_inside(word: str) -> str | None:
    out: list[str] = []
    at, size = 0, len(word)
    while at < size:
        char = word[at]
        if char == "\\":
            if at + 1 == size:
                return None
            at += 1
            if word[at] not in '$`"\\\n':
                out.append(char)
            out.append(word[at])
        elif char in "$`":
            return None
        elif char != '"':  # "${X:-"a b"}": the inner quotes are removed
            out.append(char)
        at += 1
    return "".join(out)


def is_expansion(node: Node) -> bool:
    return node.type in ("expansion", "simple_expansion")


def sole_expansion(
    node: Node | None, original: Callable[[int, int], bytes] | None = None
) -> Expansion | None:
    """The expansion a word is made of alone (``$X``, ``"${X:-d}"``), if it is one."""
    if node is None:
        return None
    inner = node
    if inner.type == "string":
        parts = named(inner)
        if len(parts) != 1:
            return None
        inner = parts[0]
    if not is_expansion(inner):
        return None
    return expansion(inner, quoted=inner is not node, original=original)


def sole_read(node: Node | None) -> str | None:
    """The variable a word reads when the word is nothing but that read (a default
    allowed: ``"${X:-0}"``)."""
    found = sole_expansion(node)
    if found is None or found.indirect or found.length or found.name is None:
        return None
    if found.operator and found.operator not in DEFAULTING:
        return None
    return found.name


def command_name(node: Node) -> str:
    """The name a command runs (``echo``, ``test``), or empty."""
    name = node.child_by_field_name("name")
    return text(name) if name is not None else ""


Value = Callable[["Expansion"], str | None]  # what a read of the variable expands to


_UNPARSED_EXPANSION: Final = re.compile(r"(?<!\\)\$[A-Za-z_{(]")


def evaluate(node: Node | None, var: str | None, value: Value | None) -> str | None:
    """The text ``node`` expands to when it holds only literal text and reads of
    ``var`` (whose expansion ``value`` gives); None when it holds anything else."""
    if node is None:
        return ""
    kind = node.type
    if kind == "word" and _UNPARSED_EXPANSION.search(text(node)):
        return None  # the grammar leaves ``$_F`` in ``${X:-$_F}`` a word: not a constant
    if kind in ("word", "number", "string_content", "extglob_pattern", "regex"):
        return _unescape(text(node)) if kind == "word" else text(node)
    if kind == "raw_string":
        return text(node)[1:-1]
    if kind == "ansi_c_string":
        return None
    if kind in ("string", "concatenation"):
        parts: list[str] = []
        for child in node.children:
            if not child.is_named:
                if kind == "concatenation":
                    parts.append(text(child))
                continue
            part = evaluate(child, var, value)
            if part is None:
                return None
            parts.append(part)
        return "".join(parts)
    if is_expansion(node) and value is not None and var is not None:
        found = expansion(node)
        if found.name == var and not found.indirect:
            return value(found)
    return None


def literal(node: Node | None) -> str | None:
    """The text of a word with no expansion in it, else None."""
    return evaluate(node, None, None)


def _unescape(word: str) -> str:
    out: list[str] = []
    escaped = False
    for char in word:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            out.append(char)
    return "".join(out)
