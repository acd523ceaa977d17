"""Which modules of a tree hold which identifiers: read once, asked many times.

The reach asks, for each carried value, which modules name it beside the module it lives
in; an index from each identifier to the modules whose text holds it answers that without
reading the tree again for each question.
"""

from __future__ import annotations

import re
from typing import Final

from scanner.reach.modules import Tree

_IDENTIFIER: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


class Words:
    """The identifiers of each Python module of ``tree``, inverted."""

    def __init__(self, tree: Tree) -> None:
        self._rels: list[str] = []
        self._holding: dict[bytes, list[int]] = {}
        for rel in tree.rels():
            data = tree.data(rel)
            if data is None:
                continue
            number = len(self._rels)
            self._rels.append(rel)
            for word in set(_IDENTIFIER.findall(data)):
                held = self._holding.get(word)
                if held is None:
                    self._holding[word] = [number]
                else:
                    held.append(number)

    def holding(self, *words: bytes) -> list[str]:
        """The modules whose text holds every one of ``words`` as an identifier, in the
        tree's order."""
        found: set[int] | None = None
        for word in words:
            held = set(self._holding.get(word, ()))
            found = held if found is None else found & held
        return [self._rels[n] for n in sorted(found or ())]

    @staticmethod
    def is_word(text: bytes) -> bool:
        """Whether ``text`` is one identifier, as the index holds them."""
        return _IDENTIFIER.fullmatch(text) is not None
