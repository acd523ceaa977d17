"""A value handed to a function of the tree that gives it back, followed at the call.

vLLM reads its direct-DCP switches as ``maybe_convert_bool(os.getenv(N))``: unset is None,
which the code decides; "1" and "0" force it. The value is handed into a predicate that
gives it back when set (``if use_direct is not None: return use_direct``), the predicate's
answer decides whether a workspace object is built and returned (None otherwise), and that
object's method runs the custom op. Each case is a small tree on disk in the shape of the
real code named above it, scanned; the role, the polarity and the evidence are checked."""

from __future__ import annotations

from pathlib import Path

from scanner import GateKind, Polarity, Role
from tests.scanned import role_facts, scanned_knob

# vllm 0.33.0 envs.py:360-363 (maybe_convert_bool) and :2245-2253 (the dict of lambdas).
ENVS = """\
import os
from typing import Any


def maybe_convert_bool(value: str | None) -> bool | None:
    if value is None:
        return None
    return bool(int(value))


environment_variables = {
    "X_DIRECT_A2A": lambda: maybe_convert_bool(os.getenv("X_DIRECT_A2A")),
    "X_DIRECT_Q_GATHER": lambda: maybe_convert_bool(os.getenv("X_DIRECT_Q_GATHER")),
}


def __getattr__(name: str) -> Any:
    if name in environment_variables:
        return environment_variables[name]()
    raise AttributeError(name)
"""

# vllm 0.33.0 v1/attention/ops/cp_common.py:60-87: the value given back when set; unset, a
# truth the machine decides (an ``or`` of two calls inside the ``and``).
CP_COMMON = """\
import torch

from pkg.parallel import in_the_same_node_as

try:
    import torch.distributed._symmetric_memory as symm_mem

    symm_mem_available = True
except ImportError:
    symm_mem_available = False


def _symm_mem_spans_group(group):
    return group.world_size > 1


def direct_cp_enabled(group, dtype, use_direct, supported_dtypes=None):
    if use_direct is not None:
        return use_direct
    return (
        symm_mem_available
        and torch.cuda.is_available()
        and (supported_dtypes is None or dtype in supported_dtypes)
        and (
            all(in_the_same_node_as(group.cpu_group, source_rank=0))
            or _symm_mem_spans_group(group)
        )
    )


def direct_cp_multicast_enabled(group, dtype, use_direct, supported_dtypes=None):
    return direct_cp_enabled(
        group, dtype, use_direct, supported_dtypes
    ) and _symm_mem_spans_group(group)
"""

# vllm 0.33.0 v1/attention/ops/dcp.py:1094-1150 (A2A: one call deep) and :1248-1310, :1574-1596
# (the query gather: two calls deep); the workspace, or None, and its method's custom op.
DCP = """\
import functools

import torch

from pkg import envs
from pkg.cp_common import direct_cp_enabled, direct_cp_multicast_enabled


class DirectDCPA2AWorkspace:
    def __init__(self, group):
        self.group = group

    def lse_reduce(self, partial_output, partial_lse):
        output = torch.empty_like(partial_output)
        torch.ops._C.direct_dcp_a2a_lse_reduce(partial_output, partial_lse, output)
        return output


class DirectDCPQGatherWorkspace:
    def __init__(self, group, max_num_tokens):
        self.group = group
        self.max_num_tokens = max_num_tokens

    def gather(self, local_query):
        output = torch.empty_like(local_query)
        torch.ops._C.direct_dcp_q_gather(local_query, output)
        return output


def _q_gather_layout_supported(world_size, dtype):
    return world_size <= 8 and dtype == torch.bfloat16


@functools.cache
def get_direct_dcp_a2a_workspace(group, dtype):
    if not direct_cp_enabled(group, dtype, envs.X_DIRECT_A2A, (torch.bfloat16,)):
        return None
    return DirectDCPA2AWorkspace(group.device_group)


@functools.cache
def get_direct_dcp_q_gather_workspace(group, max_num_tokens, dtype):
    if not direct_cp_multicast_enabled(group, dtype, envs.X_DIRECT_Q_GATHER):
        return None
    if not _q_gather_layout_supported(group.world_size, dtype):
        return None
    return DirectDCPQGatherWorkspace(group.device_group, max_num_tokens)
"""

DIRECT_DCP = {
    "pkg/__init__.py": "",
    "pkg/envs.py": ENVS,
    "pkg/parallel.py": "def in_the_same_node_as(group, source_rank=0):\n    return [True]\n",
    "pkg/cp_common.py": CP_COMMON,
    "pkg/dcp.py": DCP,
}


def test_a_value_given_back_two_calls_deep_decides_the_workspace(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, DIRECT_DCP, "X_DIRECT_Q_GATHER")
    assert knob.kind is GateKind.VALUE
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `direct_cp_multicast_enabled(group, dtype, "
        "envs.X_DIRECT_Q...` at pkg/dcp.py:43, which reaches returns a new "
        "DirectDCPQGatherWorkspace (None otherwise), and its gather (pkg/dcp.py:24) -> "
        "torch.ops._C.direct_dcp_q_gather at pkg/dcp.py:26; X_DIRECT_Q_GATHER='0' leaves "
        "that branch, and what runs instead reaches no such kernel",
    )
    assert knob.default_on is True


def test_a_value_given_back_one_call_deep(tmp_path: Path) -> None:
    """The test in the predicate that gives the value back is no branch of its own: the
    machine probe it guards (``_symm_mem_spans_group``) is not the evidence."""
    knob = scanned_knob(tmp_path, DIRECT_DCP, "X_DIRECT_A2A")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `direct_cp_enabled(group, dtype, envs.X_DIRECT_A2A, "
        "(torch...` at pkg/dcp.py:36, which reaches returns a new DirectDCPA2AWorkspace "
        "(None otherwise), and its lse_reduce (pkg/dcp.py:13) -> "
        "torch.ops._C.direct_dcp_a2a_lse_reduce at pkg/dcp.py:15; X_DIRECT_A2A='0' leaves "
        "that branch, and what runs instead reaches no such kernel",
    )


def test_what_is_given_back_goes_to_its_own_call_only(tmp_path: Path) -> None:
    """Two variables handed to the same predicate: each is followed back to the call that
    handed it in, never to the other's."""
    files = {
        **DIRECT_DCP,
        "pkg/envs.py": ENVS.replace(
            '    "X_DIRECT_Q_GATHER"',
            '    "X_DIRECT_OTHER": lambda: maybe_convert_bool(os.getenv("X_DIRECT_OTHER")),\n'
            '    "X_DIRECT_Q_GATHER"',
        ),
        "pkg/other.py": (
            "from pkg import envs\n"
            "from pkg.cp_common import direct_cp_enabled\n\n\n"
            "def use_direct(group, dtype):\n"
            "    return direct_cp_enabled(group, dtype, envs.X_DIRECT_OTHER)\n"
        ),
    }
    knob = scanned_knob(tmp_path, files, "X_DIRECT_OTHER")
    assert knob.role is not Role.KERNEL
    assert knob.kind is GateKind.VALUE


def test_an_object_returned_where_none_is_returned_elsewhere(tmp_path: Path) -> None:
    """vllm 0.33.0 v1/attention/ops/dcp.py:1296-1310, with the switch read in place: the side
    that returns the workspace reaches what its methods reach."""
    files = {
        "pkg/__init__.py": "",
        "pkg/dcp.py": DCP.split("\n\ndef _q_gather")[0]
        .replace("from pkg import envs\n", "import os\n")
        .replace("from pkg.cp_common import direct_cp_enabled, direct_cp_multicast_enabled\n", "")
        + (
            "\n\ndef get_direct_dcp_q_gather_workspace(group, max_num_tokens):\n"
            '    if os.getenv("X_DIRECT_Q", "1") != "1":\n'
            "        return None\n"
            "    return DirectDCPQGatherWorkspace(group.device_group, max_num_tokens)\n"
        ),
    }
    knob = scanned_knob(tmp_path, files, "X_DIRECT_Q")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `not (os.getenv('X_DIRECT_Q', '1') != '1')` at "
        "pkg/dcp.py:30, which reaches returns a new DirectDCPQGatherWorkspace (None "
        "otherwise), and its gather (pkg/dcp.py:23) -> torch.ops._C.direct_dcp_q_gather at "
        "pkg/dcp.py:25; X_DIRECT_Q='0' leaves that branch, and what runs instead reaches no "
        "such kernel",
    )


def test_an_object_returned_on_every_path_is_no_choice(tmp_path: Path) -> None:
    """The same, where the other side returns another object, not None: the workspace's
    methods are no evidence (the other object may run the same work)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/dcp.py": DCP.split("\n\ndef _q_gather")[0]
        .replace("from pkg import envs\n", "import os\n")
        .replace("from pkg.cp_common import direct_cp_enabled, direct_cp_multicast_enabled\n", "")
        + (
            "\n\ndef get_direct_dcp_q_gather_workspace(group, max_num_tokens):\n"
            '    if os.getenv("X_DIRECT_Q", "1") != "1":\n'
            "        return DirectDCPA2AWorkspace(group.device_group)\n"
            "    return DirectDCPQGatherWorkspace(group.device_group, max_num_tokens)\n"
        ),
    }
    knob = scanned_knob(tmp_path, files, "X_DIRECT_Q")
    assert knob.role is Role.UNKNOWN
