"""Which variables a trace's table shows: by default what matters to the project,
everything with ``--all``, the names that match ``--only`` patterns.

By default a variable shows when the registry lists it (a knob or an external
variable), the static scan found it, its name starts with one of the project's
prefixes (project_prefixes), Python code of the project read it where the scan saw no
read (a scanner miss, a dynamic read), the stack's catalogue knows it, the profile's
check found it different, or the run found it set and it is no system or interpreter
variable (is_system). The rest, counted, is one summary line: system and interpreter
variables, and variables read unset by libraries and native code only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path

from knobregistry._text.plural import counted, nonzero
from knobregistry._text.printable import printable
from knobregistry.trace.catalogued import catalogued
from knobregistry.trace.model import MissKind, Read, Reconciled, Seen, Trace

# Set by the operating system, the shell, the terminal or the Python interpreter, and
# read by most programs: never a knob of the project (unless the registry or the
# catalogue names one, such as PYTHONHASHSEED).
SYSTEM_NAMES = frozenset(
    {
        *("_", "COLORTERM", "COLUMNS", "DISPLAY", "EDITOR", "HOME", "HOSTNAME", "LANG"),
        *("LANGUAGE", "LINES", "LOGNAME", "LS_COLORS", "MAIL", "NO_COLOR", "OLDPWD"),
        *("FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "PAGER", "PATH", "PWD", "SHELL"),
        *("SHLVL", "TEMP", "TMP", "TMPDIR", "TERM", "TZ", "USER", "USERNAME", "VISUAL"),
        *("VIRTUAL_ENV", "WAYLAND_DISPLAY", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"),
        *("ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy"),
        *("SSL_CERT_FILE", "SSL_CERT_DIR", "__PYVENV_LAUNCHER__"),
    }
)
SYSTEM_PREFIXES = (
    *("PYTHON", "LC_", "LD_", "XDG_", "SSH_", "DBUS_", "TERM_", "CONDA_", "MALLOC_"),
    *("GLIBC_", "LESS", "PIP_"),
)

# A first word is one of the project's prefixes when at least this share of the names of
# the registry's knobs and of the scan, and at least PREFIX_NAMES of them, start with it.
PREFIX_SHARE = 0.2
PREFIX_NAMES = 2


def is_system(name: str) -> bool:
    """Whether ``name`` is a variable of the operating system, shell or interpreter."""
    return name in SYSTEM_NAMES or name.startswith(SYSTEM_PREFIXES)


def first_word(name: str) -> str | None:
    """``PRIMUS_`` of ``PRIMUS_HC_TRITON``; None for a name without an inner underscore."""
    head, sep, rest = name.partition("_")
    return head + sep if head and sep and rest else None


def project_prefixes(names: Iterable[str]) -> tuple[str, ...]:
    """The first words a fifth of ``names`` (and at least two) share, system ones aside."""
    unique = set(names)
    counts: dict[str, int] = {}
    for name in unique:
        word = first_word(name)
        if word is not None and not is_system(word):
            counts[word] = counts.get(word, 0) + 1
    least = max(PREFIX_NAMES, PREFIX_SHARE * len(unique))
    return tuple(sorted(word for word, n in counts.items() if n >= least))


@dataclass(frozen=True, slots=True)
class View:
    """The variables a table shows, and what it leaves out, counted.

    With ``only``, the names those glob patterns match; else ``shown`` (None: all).
    """

    shown: frozenset[str] | None = None
    system: int = 0  # system and interpreter variables left out
    unset_elsewhere: int = 0  # others left out: read unset, only outside the project
    only: tuple[str, ...] = ()  # --only patterns
    matched: int = 0  # with only: the variables read that match
    read: int = 0  # with only: every variable read

    def shows(self, name: str) -> bool:
        """Whether the table lists ``name``."""
        if self.only:
            return matches(name, self.only)
        return self.shown is None or name in self.shown

    def picks(self, name: str) -> bool:
        """Whether --only, when given, keeps ``name`` (in every section, not only the reads)."""
        return not self.only or matches(name, self.only)

    @property
    def everything(self) -> bool:
        """Whether every variable read is listed."""
        return self.shown is None and not self.only

    def summary(self) -> str | None:
        """The one line for what is left out; None when nothing is."""
        if self.only:
            return (
                f"{self.matched} of {counted(self.read, 'variable')} read match --only "
                f"{_patterns(self.only)}."
            )
        hidden = self.system + self.unset_elsewhere
        if not hidden:
            return None
        system = f"{self.system} of the system and interpreter (PATH, HOME, PYTHON*, ...)"
        unset = (
            f"{self.unset_elsewhere} unset, read only by libraries or native code and unknown "
            "to the registry"
        )
        parts = nonzero([(self.system, system), (self.unset_elsewhere, unset)])
        return (
            f"{counted(hidden, 'other variable')} read, not shown: {parts}; "
            "--all shows them, --only PATTERN picks names."
        )


def _patterns(patterns: Sequence[str]) -> str:
    return ", ".join(printable(repr(p)) for p in patterns)


def only_view(trace: Trace, patterns: Sequence[str]) -> View:
    """The variables whose names match one of the glob ``patterns``."""
    names = trace.names()
    found = sum(1 for name in names if matches(name, patterns))
    return View(only=tuple(patterns), matched=found, read=len(names))


EVERYTHING = View()


def _found_set(reads: Sequence[Read]) -> bool:
    return any(r.seen is not Seen.UNSET for r in reads)


def _in_folder(path: str, cwd: Path) -> bool:
    """Whether ``path`` is a file under ``cwd``, outside installed packages and hidden folders."""
    file = Path(path)
    if not file.is_absolute():
        return False
    try:
        parts = file.relative_to(cwd).parts
    except ValueError:
        return False
    return not any(p.startswith(".") or p in ("site-packages", "dist-packages") for p in parts)


def _project_names(trace: Trace, reconciled: Reconciled | None, cwd: Path) -> set[str]:
    """The names read that belong to the project, by the rules of this module's docstring."""
    if reconciled is not None:
        wanted = set(reconciled.known) | {d.name for d in reconciled.differences}
        wanted |= {
            m.name
            for m in reconciled.missing
            if m.kind in (MissKind.SCANNER_MISS, MissKind.DYNAMIC)
        }
        prefixes = reconciled.prefixes
        wanted |= {n for n in trace.names() if prefixes and n.startswith(prefixes)}
        return wanted
    return {r.name for r in trace.reads for s in r.sites if s.line and _in_folder(s.path, cwd)}


def default_view(trace: Trace, reconciled: Reconciled | None, cwd: Path) -> View:
    """What matters by default: the project's variables, the catalogue's, and any other the
    run found set that is no system variable; the rest counted."""
    by_name: dict[str, list[Read]] = {}
    for read in trace.reads:
        by_name.setdefault(read.name, []).append(read)
    wanted = _project_names(trace, reconciled, cwd) | {c.name for c in catalogued(trace.reads)}
    system = 0
    shown = set()
    for name, reads in by_name.items():
        if name in wanted:
            shown.add(name)
        elif is_system(name):
            system += 1
        elif _found_set(reads):
            shown.add(name)
    return View(frozenset(shown), system, len(by_name) - len(shown) - system)


def matches(name: str, patterns: Sequence[str]) -> bool:
    """Whether ``name`` matches one of the glob ``patterns``, case-sensitively."""
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def restrict(
    trace: Trace, reconciled: Reconciled | None, patterns: Sequence[str]
) -> tuple[Trace, Reconciled | None]:
    """The trace and its reconcile with only the variables ``patterns`` match; the profile's
    differences stay whole, since they decide the exit status."""
    trace = replace(trace, reads=tuple(r for r in trace.reads if matches(r.name, patterns)))
    if reconciled is None:
        return trace, None
    resolved = []
    for place in reconciled.resolved_dynamic:
        names = tuple(n for n in place.names if matches(n, patterns))
        if names:
            resolved.append(replace(place, names=names))
    return trace, replace(
        reconciled,
        missing=tuple(m for m in reconciled.missing if matches(m.name, patterns)),
        resolved_dynamic=tuple(resolved),
        not_read=tuple(n for n in reconciled.not_read if matches(n.name, patterns)),
    )
