"""`knobs check`: run checks on one scan, one diagnostic per difference.

The use case returns data (CheckResult); reporters render it, and only the CLI
turns it into an exit code. The inventory check (code versus registry) is
here; the other checks are composed in knobregistry.families.
"""

from knobregistry.check.family import Check, CheckRun, Context
from knobregistry.check.inventory import INVENTORY
from knobregistry.check.reconcile import reconcile, required
from knobregistry.check.run import CheckResult, run_check
from knobregistry.check.where import Where
from knobregistry.paths import shown

__all__ = [
    "INVENTORY",
    "Check",
    "CheckResult",
    "CheckRun",
    "Context",
    "Where",
    "reconcile",
    "required",
    "run_check",
    "shown",
]
