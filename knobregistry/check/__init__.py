"""`knobs check`: reconcile a scan with the registry, one diagnostic per difference.

The use case returns data (CheckResult); reporters render it, and only the CLI
turns it into an exit code.
"""

from knobregistry.check.reconcile import reconcile, required
from knobregistry.check.rules import RULES, Rule, RuleInfo, rule
from knobregistry.check.run import Check, CheckFunction, CheckResult, run_check, scan_scope
from knobregistry.paths import shown

__all__ = [
    "RULES",
    "Check",
    "CheckFunction",
    "CheckResult",
    "Rule",
    "RuleInfo",
    "reconcile",
    "required",
    "rule",
    "run_check",
    "scan_scope",
    "shown",
]
