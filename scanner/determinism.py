"""The catalogue of known determinism settings of the stack: the one place that says which
library variables make a run deterministic, and with which value.

A knob found in the scan under one of these names has the role ``stack``; a knob whose
launcher writes set two or more of them to these values is the framework's own
deterministic mode (role ``determinism``). The bitwise recipe sets a ``stack`` knob to
its value here and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """A library's determinism setting: the variable, its deterministic value, and why."""

    name: str
    value: str
    library: str
    effect: str


SETTINGS: Final[Mapping[str, Setting]] = MappingProxyType(
    {
        s.name: s
        for s in (
            Setting(
                name="CUBLAS_WORKSPACE_CONFIG",
                value=":4096:8",
                library="cuBLAS",
                effect="a fixed workspace per stream, which torch.use_deterministic_algorithms "
                "requires on CUDA 10.2 and later",
            ),
            Setting(
                name="NCCL_ALGO",
                value="Ring",
                library="NCCL / RCCL",
                effect="the ring algorithm for every collective, whose reduction order is fixed",
            ),
            Setting(
                name="NVTE_ALLOW_NONDETERMINISTIC_ALGO",
                value="0",
                library="Transformer Engine",
                effect="only Transformer Engine's deterministic kernels",
            ),
            Setting(
                name="ROCBLAS_DEFAULT_ATOMICS_MODE",
                value="0",
                library="rocBLAS",
                effect="no atomic (non-deterministic) reductions in GEMMs",
            ),
            Setting(
                name="TORCH_COMPILE_DISABLE",
                value="1",
                library="torch",
                effect="torch.compile off: no generated Triton kernels and no autotuning",
            ),
            Setting(
                name="PRIMUS_TURBO_AUTO_TUNE",
                value="0",
                library="Primus-Turbo",
                effect="no kernel autotuning, so the kernel choice is the same in every run",
            ),
        )
    }
)

# How many catalogue settings a switch's writes must set before it counts as the
# framework's deterministic mode: one alone may be a coincidence (a launcher that pins
# NCCL_ALGO for speed), two are a recipe.
MODE_EVIDENCE: Final = 2


def setting(name: str) -> Setting | None:
    """The catalogue's entry for ``name``, or None."""
    return SETTINGS.get(name)


def deterministic_writes(writes: Iterable[tuple[str, str | None]]) -> tuple[Setting, ...]:
    """The catalogue settings among ``(name, value)`` writes that set their deterministic
    value, each once, in catalogue order."""
    found = {name for name, value in writes if (s := SETTINGS.get(name)) and value == s.value}
    return tuple(s for name, s in SETTINGS.items() if name in found)
