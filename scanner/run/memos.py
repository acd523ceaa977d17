"""The reach's memos, made to say what each result was found from.

The reach keeps what it found for one knob (a function's marks, a branch's summary) and
gives it to the next knob that gets there. A knob that takes such a result read, in
effect, every module the result was found from: each memo entry remembers how much of the
reads of the knob it was found for had happened when it was stored (all it can have been
found from), and adds those to the reads of any later knob that takes it.
"""

from __future__ import annotations

from typing import Any

from scanner.reach.modules import Reads, Tree
from scanner.reach.walked import Walked

_MISSING: Any = object()


class Memo(dict[Any, Any]):
    """A dict of the reach's results, each with the reads it was found from."""

    def __init__(self, tree: Tree, items: dict[Any, Any]) -> None:
        super().__init__(items)
        self._tree = tree
        self._made: dict[Any, tuple[Reads, int, int]] = {}

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        reads = self._tree.reads
        if reads is not None:
            self._made[key] = (reads, len(reads.modules), len(reads.asked))

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        self._taken(key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        value = super().get(key, _MISSING)
        if value is _MISSING:
            return default
        self._taken(key)
        return value

    def __contains__(self, key: object) -> bool:
        found = super().__contains__(key)
        if found:
            self._taken(key)
        return found

    def _taken(self, key: Any) -> None:
        made = self._made.get(key)
        if made is not None and made[0] is not self._tree.reads and self._tree.reads is not None:
            self._tree.reads.take(*made)


def track(tree: Tree, code: object) -> None:
    """Make every dict that ``code`` (a ``CodeReach``) and its ``reach`` keep from one knob
    to the next a ``Memo``: each such dict holds results found for a knob (the carriers'
    index is not one: the questions asked of it are noted where they are asked)."""
    holders = [code, getattr(code, "reach", None)]
    # The walks of functions are kept in dicts of their own (``scanner.reach.walked``).
    holders += [
        v
        for h in holders
        if hasattr(h, "__dict__")
        for v in vars(h).values()
        if isinstance(v, Walked)
    ]
    for holder in holders:
        if holder is None or not hasattr(holder, "__dict__"):
            continue
        for name, value in list(vars(holder).items()):
            if type(value) is dict:
                setattr(holder, name, Memo(tree, value))
