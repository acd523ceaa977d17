"""KNB113: a bitwise profile that does not set a catalogued determinism setting of a library
the project uses on its platform.

What the project uses is read from its files (requirements*.txt, pyproject.toml, the scanned
code's imports), never from the environment `knobs check` runs in, so the check gives the
same answer everywhere. The platform is the one the registry's own stack settings belong to.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from knobregistry.catalogue import Entry, Kind, Platform, for_name
from knobregistry.check import Where
from knobregistry.codes import rule
from knobregistry.diagnostics import Diagnostic
from knobregistry.profiles import ResolvedProfile
from knobregistry.registry import Registry
from knobregistry.stack_use import StackUse, stack_use
from scanner import Role

LACKS_STACK_SETTING = rule("KNB113")


def registry_platform(registry: Registry) -> Platform | None:
    """The one platform the registry's stack settings belong to; None for none or several."""
    names = [n for n, e in registry.external.items() if e.role is Role.STACK]
    names += [n for n, c in registry.config.items() if c.backend == "stack"]
    found = set()
    for name in names:
        entry = registry.external.get(name)
        libraries = {p.strip() for p in (entry.library or "").split("/")} if entry else set()
        for item in for_name(name):
            if item.platform is not Platform.ANY and (not libraries or item.library in libraries):
                found.add(item.platform)
    return found.pop() if len(found) == 1 else None


def project_stack(registry: Registry) -> StackUse:
    """The catalogue's settings for the project the registry describes."""
    return stack_use(
        folder=registry.root,
        paths=registry.scan_paths(),
        platform=registry_platform(registry),
        environment=False,
    )


def lacking(where: Where, resolved: ResolvedProfile, use: StackUse) -> Iterator[Diagnostic]:
    """KNB113 for each applicable setting the bitwise profile ``resolved`` does not give its
    deterministic value."""
    name = resolved.name
    for entry in use.entries:
        has, found = _has(resolved, entry)
        if has:
            continue
        how = "; ".join(
            f"{package} ({way})" for package, way in use.found.items() if _brings(entry, package)
        )
        what = f"{entry.library}'s {entry.meaning} ({_shown(entry)})"
        state = "does not set" if found is None else f"sets {found}, not {_shown(entry)}, for"
        message = (
            f"profile '{name}' (kind bitwise) {state} {entry.name}: {what}; the project uses "
            f"{entry.library} ({how or 'every Python project'})."
        )
        place = "external" if entry.kind is Kind.VARIABLE else "config"
        if found is None:
            fix = (
                f"register {entry.name} under `{place}:` as `knobs catalogue {entry.library}` "
                f"gives it and let profile '{name}' set it (source: {entry.source})."
            )
        else:
            fix = (
                f"give {entry.name} the value {_value(entry)} in profile '{name}' "
                f"(source: {entry.source})."
            )
        yield where.diagnostic(LACKS_STACK_SETTING, ("profiles", name), message, fix, entry.name)


def _has(resolved: ResolvedProfile, entry: Entry) -> tuple[bool, str | None]:
    """Whether the profile gives the entry its value, and what it gives otherwise."""
    if entry.kind is Kind.VARIABLE:
        value = resolved.env.get(entry.name)
        return value == entry.deterministic, None if value is None else repr(value)
    if entry.name not in resolved.config:
        return False, None
    given = resolved.config[entry.name]
    return given == entry.deterministic and type(given) is type(entry.deterministic), json.dumps(
        given
    )


def _value(entry: Entry) -> str:
    if entry.kind is Kind.VARIABLE:
        return repr(entry.deterministic)
    return json.dumps(entry.deterministic)


def _shown(entry: Entry) -> str:
    if entry.kind is Kind.VARIABLE:
        return f"{entry.name}={entry.value_text}"
    return json.dumps(entry.deterministic)


def _brings(entry: Entry, package: str) -> bool:
    return any(package == p.lower().replace("_", "-") for p in entry.packages)
