"""Reads of a host framework's registry through the host's module, outside the tree.

A plugin of a framework reads the framework's variables through the framework's registry
module: vllm-ascend's ``import vllm.envs as envs`` ... ``if envs.VLLM_BATCH_INVARIANT:``
(vllm_ascend/batch_invariant.py:23, :151). The registry is no file of the tree, so the
scan sees no read there. Where ``scanner.host_registries`` holds the host's declaration of
the variable, each load that resolves to ``vllm.envs.VLLM_BATCH_INVARIANT`` (through
``import vllm.envs as E``, ``from vllm import envs``, a function's own import, or ``from
vllm.envs import N``) is a site of it: its default and gate are the declaration's, read by
the scanner's own readers as the registry's file would be, and what the load gives under
each probe is what the declaration's lambda returns (its decision for the tests around
the load). A tree that holds the registry module itself reads its own file instead.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from scanner.host_registries import HOSTS
from scanner.model import Decision, DecisionKind, Gate, Outcome, ReadKind, Site
from scanner.reach.modules import Module, Tree
from scanner.source.ast_walk import scoped


@dataclass(frozen=True, slots=True)
class Declared:
    """A host's declaration of one variable, as the scanner reads it."""

    name: str
    default: str | None
    gate: Gate
    # What the registry's attribute holds under each probed value (None: unset).
    outcomes: tuple[tuple[str | None, Outcome], ...]


def host_reads(tree: Tree, rels: Sequence[str]) -> tuple[Site, ...]:
    """Each load in the modules ``rels`` (those ``names_a_host`` accepts) of a variable that
    a host's registry, outside the tree, declares."""
    found: list[Site] = []
    for module_name, _, entries in HOSTS:
        if tree.in_tree(module_name):
            continue
        for rel in rels:
            data = tree.data(rel)
            if data is None or not _names(data, module_name, entries):
                continue
            module = tree.module(rel)
            if module is not None:
                found.extend(_loads(module, module_name))
    return tuple(found)


def names_a_host(data: bytes) -> bool:
    """Whether a module's bytes name a host's registry module and one of its variables:
    the modules ``host_reads`` parses."""
    return any(_names(data, module_name, entries) for module_name, _, entries in HOSTS)


def _names(data: bytes, module_name: str, entries: Sequence[tuple[str, str, str]]) -> bool:
    last = module_name.rsplit(".", 1)[-1].encode()
    return last in data and any(name.encode() in data for name, _, _ in entries)


def _loads(module: Module, registry: str) -> Iterator[Site]:
    declared = declarations(registry)
    for node, function in scoped(module.tree):
        if isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.Name):
            name = node.id
        else:
            continue
        entry = declared.get(name)
        if entry is None or not isinstance(node.ctx, ast.Load):
            continue
        if module.resolve(node) != f"{registry}.{name}":
            continue
        column = module.column(node.lineno, node.col_offset)
        yield Site(
            name=name,
            path=module.rel,
            line=node.lineno,
            column=column,
            kind=ReadKind.FIELD,
            default=entry.default,
            gate=entry.gate,
            function=function,
            via=registry,
            decisions=(
                Decision(
                    kind=DecisionKind.READ,
                    line=node.lineno,
                    column=column,
                    outcomes=entry.outcomes,
                ),
            ),
        )


@cache
def declarations(registry: str) -> dict[str, Declared]:
    """The variables ``registry`` declares (``scanner.host_registries``), read by the
    scanner's readers from a module that holds its declarations as the host's table does."""
    from scanner.interpret.analyze import analyze
    from scanner.interpret.module import ParsedModule
    from scanner.settings import Settings
    from scanner.syntax.index import WrapperIndex

    entries = next((e for m, _, e in HOSTS if m == registry), ())
    rows = "".join(f"    {name!r}: {declaration},\n" for name, declaration, _ in entries)
    text = f"import os\n\nenvironment_variables = {{\n{rows}}}\n"
    rel = registry.replace(".", "/") + ".py"
    result = analyze(ParsedModule.parse(rel, registry, text), WrapperIndex(), Settings())
    found: dict[str, Declared] = {}
    for site in result.sites:
        stored = next(
            (
                d
                for d in site.decisions
                if d.kind is DecisionKind.STORE and d.store == "global" and d.name == site.name
            ),
            None,
        )
        if stored is not None and site.name not in found:
            found[site.name] = Declared(site.name, site.default, site.gate, stored.outcomes)
    return found
