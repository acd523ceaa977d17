"""Trainer-config keys held against the trainer's own config classes: the one loop that
megatron (KNB104 / KNB105) and torchtitan (KNB107 / KNB108) keys share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from knobregistry.check.diagnostics import Diagnostic, Rule
from knobregistry.project.trainer_types import ClassesMissing

if TYPE_CHECKING:
    from knobregistry.registry import Registry


class Fields(Protocol):
    """What a trainer's config classes answer: whether they define a key."""

    def defines(self, key: str) -> bool: ...


F = TypeVar("F", bound=Fields)


@dataclass(frozen=True, slots=True, kw_only=True)
class Backend(Generic[F]):
    """How one trainer's keys are checked, and what the findings say."""

    name: str  # the `backend:` of the keys checked
    unknown: Rule  # a key the config classes do not define
    not_checked: Rule  # the note when they cannot be read
    checked_against: str  # "its config dataclasses"
    install: str  # the fix of the note
    message: Callable[[str, F], str]  # why a key is unknown
    fix: Callable[[str, F], str]


def backend_key_diagnostics(
    registry: Registry,
    shown: str,
    backend: Backend[F],
    fields: Callable[[], F | ClassesMissing],
) -> list[Diagnostic]:
    """Every `backend: NAME` key without `argument` must be defined by the trainer's config
    classes; one note when they cannot be read. ``shown`` is the registry file as messages
    show it; ``fields`` is called (and the trainer imported) only when a key needs it."""
    keys = [
        key.name
        for key in registry.config.values()
        if key.backend == backend.name and key.argument is None
    ]
    if not keys:
        return []
    found = fields()
    if isinstance(found, ClassesMissing):
        line, column = registry.position("config", keys[0])
        count = f"{len(keys)} config keys" if len(keys) > 1 else "the config key"
        verb = "were" if len(keys) > 1 else "was"
        message = (
            f"{found.reason}, so {count} declared `backend: {backend.name}` "
            f"({', '.join(keys)}) {verb} not checked against {backend.checked_against}."
        )
        return [backend.not_checked.diagnostic(shown, line, column, message, fix=backend.install)]
    diagnostics: list[Diagnostic] = []
    for key in keys:
        if found.defines(key):
            continue
        line, column = registry.position("config", key)
        diagnostics.append(
            backend.unknown.diagnostic(
                shown, line, column, backend.message(key, found), fix=backend.fix(key, found)
            )
        )
    return diagnostics
