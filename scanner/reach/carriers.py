"""The carried values of a scan, and the modules whose text can name them."""

from __future__ import annotations

import re
from collections.abc import Iterable

from scanner.model import DecisionKind, Site
from scanner.reach.modules import Module, Tree
from scanner.reach.words import Words


class Carriers:
    """The carried values of a scan, and the modules that can use them: the module that
    defines one, and the modules whose text names it beside its module (as an import of
    it, or of its module, must). The tree is searched once, for all of them."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._mentions: dict[tuple[str, str], list[str]] = {}
        self._wanted: set[tuple[str, str]] = set()
        self._words: Words | None = None  # read at the first search

    def want(self, carried: Iterable[tuple[str, str]]) -> None:
        """``(module, name)`` pairs to look for: all of them are searched for together
        the next time one that was not searched yet is asked for."""
        self._wanted.update(c for c in carried if c not in self._mentions)

    def modules_naming(self, module: Module | None, name: str) -> list[str]:
        """The modules that may use ``module``'s ``name``: ``module`` itself, and those
        whose text holds ``name`` and the last part of ``module``'s name (with no
        module, a config key: every module whose text holds ``name``)."""
        key = (module.name if module is not None else "", name)
        self.tree.asked(*key)
        if key not in self._mentions:
            self._wanted.add(key)
            self._search()
        found = self._mentions[key]
        if module is None:
            return found
        return [module.rel, *(rel for rel in found if rel != module.rel)]

    def _search(self) -> None:
        if self._words is None:
            self._words = Words(self.tree)
        for key in sorted(self._wanted):
            home, name = key[0].rsplit(".", 1)[-1].encode(), key[1].encode()
            words = [w for w in (home, name) if w]
            if all(Words.is_word(w) for w in words):
                candidates = self._words.holding(*words)
            else:  # a dotted key: every module, read
                candidates = list(self.tree.rels())
            found = self._mentions[key] = []
            for rel in candidates:
                data = self.tree.data(rel)
                if (
                    data is not None
                    and name in data
                    and home in data
                    and (_imports(data, home, name) if key[0] else _read_as_key(data, name))
                ):
                    found.append(rel)
        self._wanted.clear()


def _imports(data: bytes, home: bytes, name: bytes) -> bool:
    """Whether a module's text can name ``name`` of the module ``home`` (its last part):
    the dotted ``home.name``, or a line naming ``home`` that imports (``from pkg.home
    import name``, ``import pkg.home as h``, ``import_module("pkg.home")``, a name in the
    parentheses of ``from pkg import (``)."""
    if home + b"." + name in data:
        return True
    at = data.find(home)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        line = data[start : end if end >= 0 else len(data)].lstrip()
        if line.startswith((b"from ", b"import ")) or b"import_module(" in line:
            return True
        statement = data.rfind(b"\nfrom ", 0, at)
        if statement < 0 and data.startswith(b"from "):
            statement = 0
        if statement >= 0 and _in_parentheses(data[statement:start]):
            return True
        at = data.find(home, at + len(home))
    return False


def _in_parentheses(statement: bytes) -> bool:
    """Whether the lines of a ``from`` statement so far leave its import list open."""
    opened = statement.find(b"import (")
    return opened >= 0 and b")" not in statement[opened:]


def _read_as_key(data: bytes, key: bytes) -> bool:
    """Whether a module's text can read config key ``key`` (``x.key``, ``"key"``)."""
    return re.search(rb"[.'\"]" + re.escape(key) + rb"(?![A-Za-z0-9_])", data) is not None


def carried_names(site: Site, module_name: str) -> list[tuple[str, str]]:
    """The ``(module, name)`` a site's decisions carry its value under, to search for."""
    names = []
    for decision in site.decisions:
        if decision.kind is DecisionKind.RETURN and decision.name and "<" not in decision.name:
            names.append((module_name, decision.name.split(".", 1)[0]))
        elif decision.kind is DecisionKind.STORE and decision.store == "global" and decision.name:
            names.append((module_name, decision.name))
        elif decision.kind is DecisionKind.STORE and decision.store == "key" and decision.name:
            names.append(("", decision.name))  # a key of an object: any module may read it
    return names
