"""Two sides of one test that each call the same kernel library: evidence for neither.

``if _hf_impl_enabled(): from fla.ops.gated_delta_rule import chunk_gated_delta_rule``
against XTuner's own custom-op wrap of ``fla.ops.gated_delta_rule.chunk``'s forward and
backward (InternLM/xtuner b934f46 xtuner/v1/ops/gated_deltanet/__init__.py:41-48,
chunk_gated_delta_rule.py:10-15, :46, :148), and the library's ``causal_conv1d_fn``
against a wrap of the same library's CUDA extension (__init__.py:30-38, :51-56,
causal_conv1d.py:3, :25, :66): each side runs entry points of one library, and no other
kernel, whose code the tree does not show. Which of its kernels each runs, the code cannot
tell apart, so neither side's say that a value leaves a kernel or takes one of its own;
what the value does at its other tests decides (there, XTUNER_HF_IMPL=true leaves the flash
attention kernels for the eager path, attn_imp.py:294-296).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from scanner.reach.marks import Mark, MarkKind
from scanner.reach.sides import Branch


def same_library(
    lost: Sequence[Branch],
    instead: Sequence[Branch],
    kernels: Callable[[Branch], frozenset[Mark]],
) -> tuple[frozenset[Mark], tuple[str, ...]]:
    """The kernels of the branches of ``lost`` and ``instead`` at one test where each side
    reaches only entry points of kernel libraries, and of the same libraries, and the
    places that show it (``kernels``: what a branch reaches). A side that reaches a library
    the other does not (modelscope/ms-swift swift/utils/hub_utils.py:218-231: unset loads
    the Hub kernel through ``kernels.get_local_kernel``, USE_HF=1 through transformers) is a
    choice between libraries, as before."""
    marks: set[Mark] = set()
    shown: list[str] = []
    for branch in lost:
        mine = kernels(branch)
        for other in instead:
            if other.test is not branch.test:
                continue
            # a kernel both sides reach is evidence for neither already: the entries that
            # differ are the swap (none where both sides reach the same kernels)
            theirs = kernels(other)
            common = mine & theirs
            own, others = mine - common, theirs - common
            both = _libraries(own)
            if not both or _libraries(others) != both or not _only_libraries(own | others):
                continue
            marks.update(own | others)
            names = ", ".join(sorted(both))
            shown.append(f"at {branch.where} each side calls {names}")
    return frozenset(marks), tuple(dict.fromkeys(shown))


def _only_libraries(marks: frozenset[Mark]) -> bool:
    """Whether every kernel of ``marks`` is a library's entry point (a Triton kernel, a
    custom op or a compiled path beside it is the tree's own code, which tells sides apart)."""
    return all(_library(m) is not None for m in marks)


def _libraries(marks: frozenset[Mark]) -> set[str]:
    return {name for m in marks if (name := _library(m)) is not None}


def _library(mark: Mark) -> str | None:
    """The library a library mark names (``flash-linear-attention (fla.ops.x)``)."""
    if mark.kind is not MarkKind.LIBRARY or " (" not in mark.what:
        return None
    return mark.what.rsplit(" (", 1)[0]
