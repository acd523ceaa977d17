"""A table row's value stored on an object by ``setattr``, tested by a registered patch's
lambda, whose patch installs source text that calls a kernel library.

Primus resolves its FLA knobs in a loop over a table of ``(attribute, variable, default)``
rows, storing each on ``args`` with ``setattr``; a patch registered under
``condition=lambda ctx: getattr(get_args(ctx), "use_fla_fused_swiglu", False)`` rewrites a
method's source with a fragment that imports FLA's Triton swiglu, and ``exec``s it. Each
case is a small tree on disk in the shape of the real code named above it, scanned; the
role, the polarity and the evidence are checked."""

from __future__ import annotations

from pathlib import Path

from scanner import GateKind, Polarity, Role
from tests.scanned import role_facts, scanned_knob

CORE = """\
def register_patch(name, condition=None, priority=0):
    def wrap(f):
        return f

    return wrap


def get_args(ctx):
    return ctx.args
"""

# AMD-AGI/Primus fd1eeab, primus/backends/megatron/patches/fla_runtime_patches.py:82-150:
# the table, the converter, the cheap probe the resolver is registered under, the loop.
RUNTIME = """\
import os
from typing import Any

from pkg.core import get_args, register_patch

_KNOBS: tuple = (
    ("use_fla_fused_swiglu", "X_FLA_SWIGLU", True),
    ("fused_ce_mode", "X_FUSED_CE", 1),
    ("fla_cache_dir", "X_FLA_CACHE_DIR", ""),
)


def _env_to_typed(env_string: str, default: Any) -> Any:
    if isinstance(default, bool):
        return env_string not in ("0", "", "false", "False")
    if isinstance(default, int):
        return int(env_string)
    return env_string


def _has_any_field(args) -> bool:
    for name, env_name, _default in _KNOBS:
        if getattr(args, name, None) is not None:
            return True
        if env_name in os.environ:
            return True
    return False


@register_patch("runtime", priority=-100, condition=lambda ctx: _has_any_field(get_args(ctx)))
def patch_runtime_knobs(ctx):
    args = get_args(ctx)
    for field_name, env_name, default in _KNOBS:
        env_raw = os.environ.get(env_name)
        yaml_value = getattr(args, field_name, None)
        if env_raw is not None:
            resolved = _env_to_typed(env_raw, default)
        elif yaml_value is not None:
            resolved = yaml_value
        else:
            resolved = default
        setattr(args, field_name, resolved)
"""

# Primus fd1eeab, primus/backends/megatron/patches/_source_patch_utils.py:24-75.
SOURCE_PATCH = """\
import inspect
import textwrap


def patch_method_source(cls, method_name, ori_code, new_code):
    original = getattr(cls, method_name)
    source = inspect.getsource(original)
    modified_source = textwrap.dedent(source.replace(ori_code, new_code))
    wrapper_source = "class _Wrapper:\\n" + textwrap.indent(modified_source, "    ")
    namespace: dict = {}
    exec(wrapper_source, original.__globals__, namespace)
    new_func = namespace["_Wrapper"].__dict__[original.__name__]
    setattr(cls, method_name, new_func)
    return new_func
"""

# Primus fd1eeab, primus/backends/megatron/patches/mlp_fla_swiglu_patches.py:36-95.
MLP_PATCH = """\
from pkg.core import get_args, register_patch
from pkg.source_patch import patch_method_source

_INIT_ORI = "self.linear_fc2 = submodules.linear_fc2("
_INIT_NEW = (
    "self._use_fla_swiglu = False\\n"
    "        if getattr(_get_args(), 'use_fla_fused_swiglu', True):\\n"
    "            try:\\n"
    "                from fla.modules.activations import swiglu as _fla_swiglu\\n"
    "                self._use_fla_swiglu = True\\n"
    "                self._fla_swiglu_fn = _fla_swiglu\\n"
    "            except ImportError:\\n"
    "                pass\\n"
    "\\n        " + _INIT_ORI
)
_FORWARD_ORI = "intermediate_parallel = glu(intermediate_parallel)"
_FORWARD_NEW = (
    "if self._use_fla_swiglu:\\n"
    "                    intermediate_parallel = self._fla_swiglu_fn(x_glu, x_linear)\\n"
    "                else:\\n"
    "                    " + _FORWARD_ORI
)


def _install():
    from megatron.core.transformer.mlp import MLP

    patch_method_source(MLP, "__init__", _INIT_ORI, _INIT_NEW)
    patch_method_source(MLP, "forward", _FORWARD_ORI, _FORWARD_NEW)


@register_patch(
    "mlp.fla_swiglu",
    priority=50,
    condition=lambda ctx: getattr(get_args(ctx), "use_fla_fused_swiglu", False),
)
def patch_mlp_fla_swiglu(ctx):
    _install()
"""

# Primus fd1eeab, primus/backends/megatron/patches/mamba_fused_ce_patches.py:42-68, :106-137:
# a mode, tested against 0 in the lambda; the fragment builds FLA's loss.
CE_PATCH = """\
from pkg.core import get_args, register_patch
from pkg.source_patch import patch_method_source

_INIT_ORI = "self.setup_embeddings_and_output_layer()"
_INIT_NEW = (
    _INIT_ORI + "\\n\\n" + "        _args = _get_args()\\n"
    "        _ce_mode = getattr(_args, 'fused_ce_mode', 1)\\n"
    "        if _ce_mode == 2:\\n"
    "            try:\\n"
    "                from fla.modules import FusedCrossEntropyLoss\\n"
    "                self._fused_ce = FusedCrossEntropyLoss(inplace_backward=True)\\n"
    "            except ImportError:\\n"
    "                pass\\n"
)


def _install():
    from megatron.core.models.mamba.mamba_model import MambaModel

    patch_method_source(MambaModel, "__init__", _INIT_ORI, _INIT_NEW)


@register_patch(
    "mamba.fla_fused_ce",
    priority=50,
    condition=lambda ctx: getattr(get_args(ctx), "fused_ce_mode", 0) != 0,
)
def patch_mamba_fused_ce(ctx):
    _install()
"""

TREE = {
    "pkg/__init__.py": "",
    "pkg/core.py": CORE,
    "pkg/runtime.py": RUNTIME,
    "pkg/source_patch.py": SOURCE_PATCH,
    "pkg/mlp_patch.py": MLP_PATCH,
    "pkg/ce_patch.py": CE_PATCH,
}


def test_a_row_stored_by_setattr_decides_a_patch_installed_as_source(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, TREE, "X_FLA_SWIGLU")
    assert knob.kind is GateKind.PRESENCE
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.DISABLE,
        None,
        "unset, it runs the branch of `getattr(get_args(ctx), 'use_fla_fused_swiglu', False)` "
        "at pkg/mlp_patch.py:35, which reaches calls _install (pkg/mlp_patch.py:25) -> "
        "flash-linear-attention (fla.modules.activations.swiglu), in the source handed to "
        "patch_method_source at pkg/mlp_patch.py:28; X_FLA_SWIGLU='0' leaves that branch, "
        "and what runs instead reaches no such kernel",
    )
    # set to "1" the resolver runs and the kernel stays: "0" is the value that disables it
    assert knob.on_value == "0"


def test_a_row_of_a_number_tested_in_the_lambda(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, TREE, "X_FUSED_CE")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.DISABLE,
        None,
        "unset, it runs the branch of `getattr(get_args(ctx), 'fused_ce_mode', 0) != 0` at "
        "pkg/ce_patch.py:26, which reaches calls _install (pkg/ce_patch.py:17) -> "
        "flash-linear-attention (fla.modules.FusedCrossEntropyLoss), in the source handed to "
        "patch_method_source at pkg/ce_patch.py:20; X_FUSED_CE='0' leaves that branch, and "
        "what runs instead reaches no such kernel",
    )
    assert knob.on_value == "0"


def test_a_row_that_holds_text_decides_nothing(tmp_path: Path) -> None:
    """A row whose default is a string (a folder) is no switch: nothing is stored for it."""
    files = {
        **TREE,
        "pkg/cache.py": (
            "from pkg.core import get_args, register_patch\n\n\n"
            "@register_patch(\n"
            '    "cache", condition=lambda ctx: getattr(get_args(ctx), "fla_cache_dir", "")\n'
            ")\n"
            "def patch_cache(ctx):\n"
            "    from fla.utils import set_cache\n\n"
            "    set_cache(get_args(ctx).fla_cache_dir)\n"
        ),
    }
    knob = scanned_knob(tmp_path, files, "X_FLA_CACHE_DIR")
    assert knob.role is not Role.KERNEL


def test_source_text_no_function_executes_is_not_code(tmp_path: Path) -> None:
    """The same strings handed to a function that only logs them reach nothing."""
    files = {
        **TREE,
        "pkg/source_patch.py": (
            "def patch_method_source(cls, method_name, ori_code, new_code):\n"
            "    print(cls, method_name, ori_code, new_code)\n"
        ),
    }
    knob = scanned_knob(tmp_path, files, "X_FLA_SWIGLU")
    assert knob.role is not Role.KERNEL
