"""The inventory family (KNB0xx): the code's knobs against the registry's entries."""

from __future__ import annotations

from knobregistry.check.family import Context, Family
from knobregistry.check.reconcile import reconcile
from knobregistry.codes import family_codes, rules
from knobregistry.diagnostics import Diagnostic


def _run(context: Context) -> tuple[Diagnostic, ...]:
    return reconcile(
        context.scan, context.registry, cwd=context.cwd, check_stale=context.full_scope
    )


INVENTORY = Family("inventory", rules(*family_codes("KNB0")), _run)
