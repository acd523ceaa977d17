"""KNB111 ImplicationGone: an `implied_by` of the registry that no scanned launcher write keeps
true.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import NCCL_ALGO, PROFILE, example, profiles
from knobregistry.check.profile_where import ProfileWhere, quote

if TYPE_CHECKING:
    from knobregistry.registry import KeyPath

_IMPLIED = NCCL_ALGO + '    implied_by: {PRIMUS_DETERMINISTIC: "1"}\n'


# KNB111's section of docs/profiles.md, below its heading (the site renders it there).
KNB111_SECTION = """\
An `external` entry can record that a launcher script sets it under a condition:

```yaml
external:
  NCCL_ALGO:
    library: RCCL / NCCL
    description: Selects the collective algorithm; "Ring" is deterministic.
    implied_by: {PRIMUS_DETERMINISTIC: "1"}
```

`knobs check` keeps that true against the scan: when no launcher write of the
scope sets the variable under that condition any more (the hook changed), the
entry fails, so a profile that restates or relies on the launcher's value is
told. On a Primus checkout with the hook's `NCCL_ALGO` line removed:

```
registry.yaml:315:5: KNB111 error: external.NCCL_ALGO is implied by PRIMUS_DETERMINISTIC="1", but no launcher script in the scan writes NCCL_ALGO under that condition: a profile that leaves it to the launcher no longer gets it.
    restate NCCL_ALGO in the profiles that need it and remove external.NCCL_ALGO.implied_by, or add the launcher script that sets it to scan.paths.
```
"""  # noqa: E501

KNB111 = Rule(
    code="KNB111",
    name="ImplicationGone",
    title="The registry says a launcher sets a variable under a condition, and no scanned "
    "launcher script does.",
    description=(
        "An `external` entry's `implied_by` records that a launcher script sets the variable "
        "when others hold given values (`NCCL_ALGO` when `PRIMUS_DETERMINISTIC=1`). When no "
        "write of the scan does so any more (the hook changed, or moved out of the scope), "
        "profiles that relied on the launcher no longer get the value. Reported at "
        "`implied_by`; skipped when paths on the command line narrow the scan."
    ),
    example=(
        "external:\n"
        "  NCCL_ALGO:\n"
        '    implied_by: {PRIMUS_DETERMINISTIC: "1"}\n'
        "# no scanned launcher script sets NCCL_ALGO any more"
    ),
    examples=example(
        PROFILE,
        invalid={"registry.yaml": profiles(external=_IMPLIED)},
        valid={"registry.yaml": profiles(external=_IMPLIED.split("    implied_by")[0])},
    ),
    page="profiles.md",
    section=KNB111_SECTION,
    family=Family.PROFILES,
    help=(
        "Restate the value in the profiles that need it and drop `implied_by`, or put the "
        "launcher script back in the scan's scope."
    ),
)


def gone_implications(where: ProfileWhere) -> Iterator[Diagnostic]:
    """KNB111: an entry's `implied_by` that no scanned write under that condition keeps."""
    for name, entry in where.registry.external.items():
        if not entry.implied_by:
            continue
        wanted = set(entry.implied_by)
        if any(w.name == name and wanted <= set(w.when) for w in where.scan.writes):
            continue
        condition = " and ".join(f"{n}={quote(v)}" for n, v in entry.implied_by)
        message = (
            f"external.{name} is implied by {condition}, but no launcher script in the scan "
            f"writes {name} under that condition: a profile that leaves it to the launcher "
            "no longer gets it."
        )
        fix = (
            f"restate {name} in the profiles that need it and remove external.{name}."
            "implied_by, or add the launcher script that sets it to scan.paths."
        )
        at: KeyPath = ("external", name, "implied_by")
        yield where.diagnostic(KNB111, at, message, fix, name)
