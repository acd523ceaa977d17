"""What the functions walked so far reach, kept so that each answer is the same whoever asks.

A function's reach is walked as far as ``MAX_DEPTH`` calls from the branch that calls it,
so what it reaches depends on how deep the call that asked for it was, and on nothing else
(a call back into a function being walked is cut by the same depth, not by whom is on the
way). Each walk notes the deepest call it met: a walk that met no cut holds for every call
with as many calls left, and is kept by the function alone; a walk that met a cut holds
only at the depth it was asked at, and is kept by the function and that depth. A knob's
evidence is then the same judged alone or after any other knob.
"""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Walked(Generic[T]):
    """The walks of one reach, by function, each with the depth it holds at."""

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self._whole: dict[str, tuple[T, int]] = {}  # no cut met: the calls below it
        self._cut: dict[tuple[str, int], T] = {}  # a cut met: at that depth alone
        self._deepest: list[int] = []  # the walks under way: the deepest call each met
        self._first: dict[str, T] = {}  # the first walk of each function, at any depth
        self.walks = 0

    def get(self, key: str, depth: int) -> T | None:
        """The walk of ``key`` asked for at ``depth``, if one holds there; noted as met by
        the walk under way."""
        whole = self._whole.get(key)
        if whole is not None and depth + whole[1] < self.max_depth:
            self.met(depth + whole[1])
            return whole[0]
        cut = self._cut.get((key, depth))
        if cut is not None:
            self.met(self.max_depth)
        return cut

    def any(self, key: str) -> T | None:
        """A walk of ``key`` at any depth (for what holds at every depth), or None."""
        return self._first.get(key)

    def met(self, depth: int) -> None:
        """A call at ``depth`` met by the walk under way (``max_depth`` or more: a cut)."""
        if self._deepest and depth > self._deepest[-1]:
            self._deepest[-1] = depth

    def start(self, depth: int) -> None:
        """A walk of a function called at ``depth`` begins."""
        self.walks += 1
        self._deepest.append(depth)

    def end(self, key: str, depth: int, found: T) -> None:
        """The walk of ``key`` begun at ``depth`` ends with ``found``: kept where it holds."""
        deepest = self._deepest.pop()
        if deepest >= self.max_depth:
            self._cut[(key, depth)] = found
        else:
            self._whole[key] = (found, deepest - depth)
        self._first.setdefault(key, found)
        self.met(deepest)

    def abandon(self) -> None:
        """The walk under way ends without an answer to keep (an error inside it)."""
        self._deepest.pop()
