"""A finding of `knobs check` and the rule it breaks: where, which code, what is wrong, the fix.

Every check produces Diagnostics; every reporter (text, json, github, sarif)
renders them. The rules themselves, one per code, are in knobregistry.check.codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from knobregistry._text.printable import printable

# mkdocs.yml's `site_url` (None while it has none): where a rule's docs page is published.
# The site's pages are PAGE.html (`use_directory_urls: false`); a test holds both equal.
DOCS_SITE: str | None = None


class Group(Enum):
    """An item of the pytest plugin (`registry.yaml::inventory`): what its findings check."""

    INVENTORY = ("inventory", "inventory in sync")
    PROFILES = ("profiles", "profiles complete")
    WAIVERS = ("waivers", "waivers current, baseline up to date")
    DOCS = ("docs", "docs in sync")

    def __init__(self, item: str, title: str) -> None:
        self.item = item  # the item's name, after `::`
        self.title = title


class Family(Enum):
    """The check that reports a rule, and the pytest item its findings go under."""

    INVENTORY = ("inventory", Group.INVENTORY)  # the code against the registry
    TRIAGE = ("triage", Group.INVENTORY)  # the code against what its triage was measured on
    PROFILES = ("profiles", Group.PROFILES)  # each profile against its promise
    WAIVERS = ("waivers", Group.WAIVERS)  # the registry's waivers against the day
    BASELINE = ("baseline", Group.WAIVERS)  # reported only when a baseline is applied
    DOCS = ("docs", Group.DOCS)  # generated doc blocks against the registry

    def __init__(self, label: str, group: Group) -> None:
        self.label = label
        self.group = group


class Severity(str, Enum):
    ERROR = "error"  # drift: `knobs check` exits 1
    WARNING = "warning"  # reported, does not fail the check
    NOTE = "note"  # information (for example: megatron-core is not installed)


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """One problem, one line: ``path:line:column: CODE severity: message``, then the fix."""

    code: str
    path: str  # POSIX, relative to the current folder
    line: int  # 1-based; 0 when the finding is about a whole file
    column: int  # 1-based; 0 when unknown
    message: str
    fix: str | None = None  # a command or a YAML snippet that resolves it
    knob: str | None = None
    severity: Severity = Severity.ERROR

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.code, self.message)

    def location(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.column, 1)}"

    def render(self) -> str:
        """The report line, without the fix: ``path:line:column: CODE severity: message``,
        one line whatever the message quotes (a default computed over several lines)."""
        return printable(f"{self.location()}: {self.code} {self.severity.value}: {self.message}")


Files = tuple[tuple[str, str], ...]  # a small project: (path, text) of each file


@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """Fixit's INVALID and VALID for a check: a project on which `knobs check` reports the
    rule and no other, and the same project put right, on which it reports nothing.

    A reserved rule's invalid project is a registry that does not load (exit 2). The
    tests write each project to a folder and run `knobs check ARGUMENTS` in it, with the
    folder on PYTHONPATH (for a stand-in of megatron-core or torchtitan).
    """

    invalid: Files
    valid: Files
    arguments: tuple[str, ...] = ()  # after `knobs check` (--today, --baseline)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One code: a short CamelCase name, its severity and what it means."""

    code: str
    name: str
    title: str  # one line, for tables and SARIF's shortDescription
    description: str  # a paragraph, for SARIF's fullDescription and the docs
    example: str  # a few lines of code or registry that the rule reports, as `knobs rule` shows
    examples: Example  # projects the tests check it on, reported and put right
    help: str  # what to do about it: the fix
    page: str  # the page of docs/ that documents it, under the heading of `anchor`
    family: Family
    severity: Severity = Severity.ERROR
    reserved: bool = False  # documented, never reported (for example: caught at load time)
    # Its section of the docs page, in Markdown, below its `### CODE Name` heading: the docs
    # site renders it there when it is built (knobregistry.docsite), so nothing else is edited.
    section: str = ""

    @property
    def anchor(self) -> str:
        """The heading anchor of this rule in its docs page."""
        return f"{self.code.lower()}-{self.name.lower()}"

    @property
    def docs(self) -> str:
        """Where the rule is documented: its page on the docs site when there is one
        (`DOCS_SITE`), else ``docs/PAGE#ANCHOR`` in the repository."""
        if DOCS_SITE is None:
            return f"docs/{self.page}#{self.anchor}"
        return f"{DOCS_SITE}/{self.page.removesuffix('.md')}.html#{self.anchor}"

    def diagnostic(
        self,
        path: str,
        line: int,
        column: int,
        message: str,
        *,
        fix: str | None = None,
        knob: str | None = None,
    ) -> Diagnostic:
        """A finding of this rule, with its code and severity."""
        return Diagnostic(
            code=self.code,
            path=path,
            line=line,
            column=column,
            message=message,
            fix=fix,
            knob=knob,
            severity=self.severity,
        )
