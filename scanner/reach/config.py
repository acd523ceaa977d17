"""The branches a launcher's variable decides through the config key or flag it feeds.

``use_v4_attention_backend: ${PRIMUS_USE_V4_ATTENTION_BACKEND:triton_v2}`` in a YAML config,
``--use-turbo-deepep=$X`` in a launcher: the value lands in a config key that the tree's
Python code reads (``args.use_turbo_deepep``, ``getattr(config, "key", d)``,
``cfg.get("key", d)``, ``cfg["key"]``) and tests, directly or once stored
(``self._attn_backend = str(... or "triton_v1")``). The value is what YAML makes of the
text (``true`` a boolean, ``1`` a number) or, for a flag, the text itself; the strings the
tests compare it with are weighed as values too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from scanner.conventions import name_words
from scanner.launcher.config_verdict import handed_on
from scanner.model import GateKind, Outcome, Site
from scanner.reach.carriers import Carriers
from scanner.reach.config_copies import copied_keys
from scanner.reach.key_reads import KEY, key_reads
from scanner.reach.modules import Module, Tree
from scanner.reach.sides import Branch
from scanner.reach.uses import MAX_CARRY, uses

_SWITCHES = (GateKind.BOOLEAN, GateKind.PRESENCE, GateKind.UNKNOWN)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\Z")
# A key that names what it holds is a value, whatever word its default is (``exp_name:
# llama``, ``train_data_path: mock``): no choice among code paths, so not followed.
_HOLDS = frozenset(
    [
        "NAME",
        "NAMES",
        "PATH",
        "PATHS",
        "DIR",
        "DIRS",
        "FILE",
        "FILES",
        "ROOT",
        "HOME",
        "PREFIX",
        "URL",
        "URI",
        "USER",
        "PROJECT",
        "GROUP",
        "ENTITY",
        "TAG",
        "SIZE",
        "BATCH",
    ]
)
_INTEGER = re.compile(r"[-+]?[0-9]+\Z")
_YAML_TRUE = frozenset({"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})
_YAML_FALSE = frozenset({"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})
PROBED = ("1", "0", "true", "false")


def config_key(site: Site) -> str | None:
    """The config key a launcher site's value lands in (the last part of a YAML key path,
    a flag's name with dashes as underscores), or None; only for a switch, or a value
    whose default is a word (a choice: ``triton_v2``, not a size or a path)."""
    handed = handed_on(site)
    return _chosen(site, handed[0] if handed is not None else None)


def documented_key(site: Site) -> str | None:
    """The config key of ``config_key``, or else the one a launcher's override hands the
    value to (``model.attention_backend="${X}"``): the key whose documented meaning
    (scanner.reach.trainer_keys) may say what the value chooses."""
    return config_key(site) or _chosen(site, site.override)


def _chosen(site: Site, path: str | None) -> str | None:
    """The last part of config path ``path``, for a switch or a choice's site."""
    gate = site.gate
    if path is None or (
        gate.kind not in _SWITCHES
        and not (
            gate.kind is GateKind.VALUE and site.default is not None and _WORD.match(site.default)
        )
    ):
        return None
    key = path.rsplit(".", 1)[-1]
    if gate.kind is GateKind.VALUE and _HOLDS.intersection(name_words(key)):
        return None
    return key if KEY.match(key) else None


def config_branches(site: Site, tree: Tree, carriers: Carriers) -> Iterator[Branch]:
    """Every branch the site's value decides where the tree's code reads its config key."""
    key = config_key(site)
    if key is None:
        return
    reads = key_reads(key, tree, carriers)
    if reads is None:
        return
    outcomes = [(value, typed(site, value)) for value in (None, *PROBED)]
    found = _with_copies(reads, key, outcomes, tree, carriers)
    # A string one test compares the key with is a choice every other test weighs too
    # (``== "triton"`` here, ``== "eager"`` there): weighed again with all of them.
    known = {value for value, _ in outcomes}
    chosen = list(dict.fromkeys(v for b in found for v in b.taken if v not in known))
    if chosen:
        more = [*outcomes, *((v, v) for v in chosen)]
        found = _with_copies(reads, key, more, tree, carriers)
    yield from found


def key_branches(
    key: str, outcomes: list[tuple[str | None, Outcome]], tree: Tree, carriers: Carriers
) -> list[Branch]:
    """The branches the reads of config key ``key`` decide, for what it holds under each
    value of the variable (``scanner.interpret.row_stores``)."""
    if not KEY.match(key):
        return []
    reads = key_reads(key, tree, carriers)
    return _with_copies(reads, key, outcomes, tree, carriers) if reads else []


def _with_copies(
    reads: list[tuple[Module, ast.expr]],
    key: str,
    outcomes: list[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
) -> list[Branch]:
    """The branches the reads of ``key`` decide, and those the reads of the keys the config
    object copies it into decide (config_copies.py; one copy deep)."""
    found = _decided(reads, outcomes, tree, carriers)
    for module, read in reads:
        for other, held in copied_keys(module, read, key, outcomes):
            if KEY.match(other) and (others := key_reads(other, tree, carriers)):
                found.extend(_decided(others, held, tree, carriers))
    return found


def _decided(
    reads: list[tuple[Module, ast.expr]],
    outcomes: list[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
) -> list[Branch]:
    return [
        branch
        for module, read in reads
        for branch in uses(module, read, outcomes, tree, carriers, MAX_CARRY - 1, choices=True)
    ]


def typed(site: Site, value: str | None) -> Outcome:
    """The value the config key holds when the variable is ``value`` (None: unset, its
    default at the site)."""
    text = site.default if value is None else value
    if text is None:
        return None
    if site.target is not None and site.target.startswith("-"):
        return text  # a flag's value: the trainer's parser decides its type
    if text in _YAML_TRUE:
        return True
    if text in _YAML_FALSE:
        return False
    if _INTEGER.match(text):
        return int(text)
    return text
