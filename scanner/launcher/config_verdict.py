"""The verdict of a launcher read whose value is handed on, not tested: a YAML value that
is ``${VAR:default}`` alone, a shell read passed as a command-line flag
(``--use-fused "$X"``), or a shell default exported for the programs a script starts
(``export X=${X:-1}``). What the value does is decided by whoever receives it:

- the type of the config key it lands in, where known (``Settings.config_types``, the
  trainer's config classes; the tree's own YAML literals): a switch for a boolean key,
  a value for a number or a string;
- else a true or false default: a switch;
- else the names: a variable or key named like a size, a count, a path or a name
  (``*_SIZE``, TP, PP, ``LOG_FREQ``) is a value; one named like a switch (``*_ENABLE``,
  ``USE_*``, ``*_DISABLE``) or a kernel path (``*_TRITON``, ``*_FUSED_*``) with a 0 or 1
  default is a switch by the 0/1 convention;
- else unknown: a 0 or 1 default alone does not make a switch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from scanner.conventions import OFF_WORDS, ON_WORDS, name_words, says_disable
from scanner.languages import Language
from scanner.model import VALUE_GATE, Gate, GateKind, Polarity, Role, Site, unknown_gate
from scanner.roles import WORDS

# The types a config key can have, as far as a verdict cares.
BOOL, NUMBER, TEXT, MIXED = "bool", "number", "text", "mixed"
# The spellings YAML itself reads as booleans, and the numbers a switch may default to.
TRUE_WORDS: Final = frozenset({"true", "yes", "on", "y"})
FALSE_WORDS: Final = frozenset({"false", "no", "off", "n"})
_NUMBERS: Final = {"1": True, "0": False}
# Words of a name that say it turns something on or off.
SWITCH_WORDS: Final = frozenset(
    {"ENABLE", "ENABLED", "ENABLES", "USE", "USES", "USING", "DISABLE", "DISABLED"}
    | {"DISABLES", "NO", "SKIP", "FORCE", "ALLOW"}
)


def merge_types(tables: Iterable[Iterable[tuple[str, str]]]) -> dict[str, str]:
    """One table of key types from several tables of ``(key, type)`` pairs (``mixed``
    where they disagree)."""
    merged: dict[str, str] = {}
    for table in tables:
        for key, kind in table:
            merged[key] = kind if merged.get(key, kind) == kind else MIXED
    return merged


def on_off_default(default: str | None) -> bool | None:
    """Whether ``default`` is an on word (True), an off word (False), or neither (None)."""
    if default is None:
        return None
    word = default.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return _NUMBERS.get(word)


def judge(
    name: str, default: str | None, key: str | None, types: Mapping[str, str], where: str | None
) -> Gate:
    """The verdict of a read of ``name`` falling back to ``default``, handed on to the
    config key ``key`` (None: no key is known), whose type ``types`` may know; ``where``
    names the destination for the reason (`the config key 'x'`, `the flag --x`; None: the
    script only exports it for the programs it starts)."""
    kind = types.get(key) if key is not None else None
    default_on = on_off_default(default)
    if default is None and kind == BOOL:
        return unknown_gate(f"it is handed to {where}, a boolean, with no default here")
    if default is None or default_on is None or kind in (NUMBER, TEXT):
        return VALUE_GATE
    word = default.strip().lower()
    names = [*name_words(name), *(name_words(key) if key else ())]
    reason = None
    if kind != BOOL and word in _NUMBERS:
        if any(w in WORDS[Role.VALUE] for w in names):
            return VALUE_GATE
        if where is None:
            destination = "the script only exports it, for the programs it starts"
        else:
            known = "has values of several types" if kind == MIXED else "has no known type"
            destination = f"{where} {known}"
        if SWITCH_WORDS.isdisjoint(names) and WORDS[Role.KERNEL].isdisjoint(names):
            return unknown_gate(
                f"its default is {default.strip()!r}, and {destination}: a 0 or 1 alone "
                "does not make a switch"
            )
        reason = f"a switch by its name and the 0/1 convention ({destination})"
    on, off = _family(default.strip())
    return Gate(
        kind=GateKind.BOOLEAN,
        default_on=default_on,
        off_value=off,
        on_value=on,
        off_values=(off,),
        on_values=(on,),
        polarity=Polarity.DISABLE if says_disable(name) else Polarity.ENABLE,
        reason=reason,
    )


def handed_on(site: Site) -> tuple[str | None, str] | None:
    """For a site whose value is handed on (a YAML key, a shell ``--flag``), the config
    key it lands in and how a reason names it; None for any other site."""
    target = site.target
    if site.language is Language.YAML:
        return target, config_key(target)
    if (
        site.language in (Language.SHELL, Language.CI)
        and target is not None
        and target.startswith("-")
    ):
        return target.lstrip("-").replace("-", "_"), f"the flag {target}"
    return None


# A command word that is an override whose value is one expansion alone, quoted or not
# (``model.attention_backend="${ATTENTION_BACKEND}"``, ``+trainer.x=$X``).
_OVERRIDE: Final = re.compile(
    r'"?\+{0,2}([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)="?'
    r'\$(?:\{[A-Za-z_][A-Za-z0-9_]*(?:[:=+?#%/-][^{}"]*)?\}|[A-Za-z_][A-Za-z0-9_]*)"?\Z'
)


def override_key(word: str) -> str | None:
    """The config path a launcher's command word hands one variable's value to as a Hydra or
    OmegaConf override (``model.attention_backend="${X}"``: ``model.attention_backend``), or
    None."""
    found = _OVERRIDE.match(word)
    return found.group(1) if found is not None else None


def config_key(target: str | None) -> str:
    """How a reason names the config key a YAML value lands in."""
    return f"the config key {target!r}" if target else "the document"


def _family(default: str) -> tuple[str, str]:
    """The on and off words of the convention the default is spelled in."""
    for on, off in zip(ON_WORDS, OFF_WORDS, strict=True):
        if default in (on, off):
            return on, off
    lowered = default.lower()
    return ("true", "false") if lowered in TRUE_WORDS | FALSE_WORDS else ("1", "0")
