"""The inventory check (KNB0xx): the code's knobs against the registry's entries."""

from __future__ import annotations

from knobregistry.check.codes import check_of
from knobregistry.check.diagnostics import Diagnostic, Family
from knobregistry.check.family_check import Context
from knobregistry.check.reconcile import reconcile


def _run(context: Context) -> tuple[Diagnostic, ...]:
    return reconcile(
        context.scan, context.registry, cwd=context.cwd, check_stale=context.full_scope
    )


INVENTORY = check_of(Family.INVENTORY, _run)
