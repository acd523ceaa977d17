"""The inventory check (KNB0xx): the code's knobs against the registry's entries."""

from __future__ import annotations

from knobregistry.check.diagnostics import Diagnostic, Family
from knobregistry.check.family_check import Check, Context
from knobregistry.check.reconcile import reconcile


def _run(context: Context) -> tuple[Diagnostic, ...]:
    return reconcile(
        context.scan, context.registry, cwd=context.cwd, check_stale=context.full_scope
    )


INVENTORY = Check.of(Family.INVENTORY, _run)
