"""A launcher switch whose test passes the trainer a flag the trainer documents as a kernel.

``if [ ${ENABLE_CUDA_GRAPH:-true} == true ]; then OPTS="$OPTS --cuda-graph-impl=local"; fi``
(NVIDIA/Megatron-LM d98e8a64 examples/rl/model_configs/common.sh:40-41): with the variable
at ``true`` the trainer gets ``--cuda-graph-impl=local``, which megatron-core documents as
CUDA graph capture (scanner.reach.trainer_keys). The trainer's code is not in the tree: its
documentation of the key is the evidence, as for a value handed on to a flag."""

from __future__ import annotations

from scanner.model import GateKind, Knob, Role
from scanner.reach.trainer_keys import TrainerKey, trainer_key
from scanner.roles import Evidence

_SWITCHES = (GateKind.BOOLEAN, GateKind.PRESENCE)


def passed_flags(knob: Knob) -> Evidence | None:
    """A kernel choice, for a switch whose on value makes a launcher pass a flag that turns
    a documented kernel key on, while its off value passes none of them."""
    if knob.kind not in _SWITCHES or knob.off_value is None:
        return None
    for site in knob.sites:
        on_values = {*site.gate.on_values, knob.on_value}
        for value, flag in site.passes:
            known = _kernel_key(flag)
            if known is None or value not in on_values or value in site.gate.off_values:
                continue
            return Evidence(
                Role.KERNEL,
                f"with {knob.name}={value}, the branch of the test at {site.path}:{site.line} "
                f"passes {flag}, which "
                f"{known.source} documents as {known.meaning}; {knob.off_value!r} leaves the "
                "flag out",
                value=knob.off_value,
                default_reaches=knob.default_on is True,
            )
    return None


def _kernel_key(flag: str) -> TrainerKey | None:
    """The documented kernel key a flag turns on (``--cuda-graph-impl=local``), or None."""
    name, _, value = flag.partition("=")
    key = name.lstrip("-").replace("-", "_")
    known = trainer_key(key)
    if known is None or known.role is not Role.KERNEL or known.inverted:
        return None
    if known.off is None:
        return known if not value else None  # a boolean key given a value: not read here
    if known.default != known.off:
        return None  # the flag left out, the trainer's default still runs a kernel
    return known if value and value != known.off else None
