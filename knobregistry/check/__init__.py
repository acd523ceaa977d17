"""`knobs check`: run families of checks on one scan, one diagnostic per difference.

The use case returns data (CheckResult); reporters render it, and only the CLI
turns it into an exit code. The inventory family (code versus registry) is
here; the other families are composed in knobregistry.families.
"""

from knobregistry.check.family import CheckRun, Context, Family
from knobregistry.check.inventory import INVENTORY
from knobregistry.check.reconcile import reconcile, required
from knobregistry.check.run import CheckResult, run_check
from knobregistry.check.where import Where
from knobregistry.paths import shown

__all__ = [
    "INVENTORY",
    "CheckResult",
    "CheckRun",
    "Context",
    "Family",
    "Where",
    "reconcile",
    "required",
    "run_check",
    "shown",
]
