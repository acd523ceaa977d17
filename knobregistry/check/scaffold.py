"""Add a rule to `knobs check`: write its module and its test, as Ruff's `add_rule.py` does.

    python -m knobregistry.check.scaffold KNB116 LauncherPinsThreads profiles

writes knobregistry/check/rules/launcher_pins_threads.py (the `Rule`, its example
projects from the family's, and a ``run(context)`` that reports nothing yet) and
tests/test_rule_launcher_pins_threads.py (its finding's golden line, to fill in). The
index (check.codes) finds the module, and its family's check runs its ``run``: nothing
else is edited. Its docs section is the Rule's ``section``, which the docs site shows under
``### CODE Name`` on its page (knobregistry.docsite): no page is edited either. The TODOs of
the two files say what to write. No file is overwritten.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from knobregistry._io.atomic import write_atomic
from knobregistry.check.codes import RULES
from knobregistry.check.diagnostics import Family

REPOSITORY = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class _Base:
    """What a family's new rule starts from: the example project and the docs page."""

    project: str  # a name of knobregistry.check.examples
    page: str


_BASES = {
    Family.INVENTORY: _Base("INVENTORY", "checks.md"),
    Family.TRIAGE: _Base("INVENTORY", "checks.md"),
    Family.PROFILES: _Base("PROFILE", "profiles.md"),
    Family.WAIVERS: _Base("INVENTORY", "waivers.md"),
    Family.BASELINE: _Base("INVENTORY", "waivers.md"),
    Family.DOCS: _Base("INVENTORY", "generated-docs.md"),
}

_MODULE = '''\
"""{code} {name}: TODO what the rule reports, in one sentence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import {project}, example

if TYPE_CHECKING:
    from knobregistry.check.family_check import Context

{code} = Rule(
    code="{code}",
    name="{name}",
    title="TODO one line, for tables and SARIF.",
    description="TODO a paragraph: what is wrong, and where it is reported.",
    example="TODO a few lines of code or registry that the rule reports",
    examples=example(
        {project},
        invalid={{}},  # TODO the files that make `knobs check` report {code} and no other code
        valid={{}},  # TODO the same project put right
    ),
    page="{page}",
    family=Family.{family},
    help="TODO what to do about it.",
    section="TODO its docs section, in Markdown: what it means, what check prints, the fix.\\n",
)


def run(context: Context) -> list[Diagnostic]:
    """{code}: TODO what the check holds against what (its family's check runs it).

    Import the engine (knobregistry.registry, profiles, ...) here, not at the top: `knobs
    rule` loads the rule modules and must stay light (tests/test_startup_imports.py).
    """
    return []  # TODO {code}.diagnostic(path, line, column, message, fix=..., knob=...)
'''

_TEST = '''\
"""{code} {name}: what `knobs check` prints for the rule's example,
and how it is put right.

Every rule's examples also run in tests/test_rule_table.py (reported alone, then clean).
"""

from __future__ import annotations

from pathlib import Path

from knobregistry.check.rules.{module} import {code}
from tests.conftest import run_knobs, write_tree


def test_the_finding_is_one_line_with_its_fix(tmp_path: Path) -> None:
    write_tree(tmp_path, dict({code}.examples.invalid))
    done = run_knobs("check", *{code}.examples.arguments, cwd=tmp_path)
    # TODO the line `knobs check` prints: path:line:column: {code} error: message
    assert done.stdout.splitlines()[0] == "TODO"


def test_the_fixed_project_is_clean(tmp_path: Path) -> None:
    write_tree(tmp_path, dict({code}.examples.valid))
    done = run_knobs("check", *{code}.examples.arguments, cwd=tmp_path)
    assert (done.returncode, " {code} " in done.stdout) == (0, False)
'''


class ScaffoldError(Exception):
    """A code, name or family the scaffold cannot use; the message says why."""


def snake(name: str) -> str:
    """``LauncherPinsThreads`` -> ``launcher_pins_threads``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def planned(code: str, name: str, family: str, root: Path) -> dict[Path, str]:
    """The files a new rule gets, by path: its module and its test."""
    if not re.fullmatch(r"KNB\d{3}", code):
        raise ScaffoldError(f"{code} is not a code: KNB and three digits (KNB116).")
    if not re.fullmatch(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+", name):
        raise ScaffoldError(f"{name} is not a CamelCase name of two words or more.")
    taken = next((r for r in RULES if r.code == code or r.name == name), None)
    if taken is not None:
        raise ScaffoldError(f"{taken.code} {taken.name} is declared already.")
    families = {f.label: f for f in Family}
    chosen = families.get(family)
    if chosen is None:
        raise ScaffoldError(f"{family} is no family; one of: {', '.join(families)}.")
    base = _BASES[chosen]
    module = snake(name)
    fields = {
        "code": code,
        "name": name,
        "module": module,
        "family": chosen.name,
        "project": base.project,
        "page": base.page,
    }
    return {
        root / "knobregistry" / "check" / "rules" / f"{module}.py": _MODULE.format(**fields),
        root / "tests" / f"test_rule_{module}.py": _TEST.format(**fields),
    }


def write(files: dict[Path, str]) -> None:
    """Write ``files``; ScaffoldError, before writing any, when one exists already."""
    there = [path for path in files if path.exists()]
    if there:
        raise ScaffoldError(f"{there[0]} exists; the scaffold overwrites nothing.")
    for path, text in files.items():
        write_atomic(path, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m knobregistry.check.scaffold",
        description="Write a new rule's module (check/rules/) and its test (tests/).",
    )
    parser.add_argument("code", help="the new code, KNB and three digits (KNB116)")
    parser.add_argument("name", help="its CamelCase name (LauncherPinsThreads)")
    parser.add_argument("family", help=f"its family: {', '.join(f.label for f in Family)}")
    parser.add_argument("--root", type=Path, default=REPOSITORY, help="the repository")
    args = parser.parse_args(argv)
    try:
        files = planned(args.code, args.name, args.family, args.root)
        write(files)
    except ScaffoldError as error:
        print(f"scaffold: error: {error}", file=sys.stderr)
        return 2
    for path in files:
        print(f"Wrote {path.relative_to(args.root)}")
    print(f"Fill in its TODOs; its `section` is its docs, under `### {args.code} {args.name}`.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
