"""A switch kept on the one config object a module holds, read through its accessor.

vLLM-Ascend reads VLLM_ASCEND_ENABLE_MLAPO in a table of lambdas (vllm_ascend/envs.py:75),
hands it to ``AscendConfig._get_config_value``, which gives it back (ascend_config.py:186-191,
:361-373), and keeps it on the config as ``self.enable_mlapo``. The module keeps one config
(``_ASCEND_CONFIG``, :1297, bound in init_ascend_config :1318-1331) and returns it from
``get_ascend_config()`` (:1340-1344); attention/utils.py:520-530 reads
``get_ascend_config().enable_mlapo`` into ``enabling_mlapo``, which mla_v1.py:741 keeps as
``self.enable_mlapo`` and tests at :1718 before ``DeviceOperator.mla_preprocess_only_decode``,
where ``DeviceOperator = get_device_adaptor()`` (device/device_op.py:1878-1887) is one of
three adaptor classes and the base one runs ``torch.ops._C_ascend.mla_preprocess`` (:350).
Each case is a small tree on disk in that shape, scanned; the role and evidence are checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Role
from tests.scanned import scanned_knob

# vllm_ascend/envs.py:30-99 (the lazy table) and its module __getattr__.
ENVS = """\
import os
from typing import Any

env_variables: dict[str, Any] = {
    "X_ENABLE_MLAPO": lambda: bool(int(os.getenv("X_ENABLE_MLAPO", "1"))),
}


def __getattr__(name: str):
    if name in env_variables:
        return env_variables[name]()
    raise AttributeError(name)
"""

# vllm_ascend/ascend_config.py:186-191, :361-373, :1297-1344.
CONFIG = """\
import os
from typing import Any

import pkg.envs as ascend_envs


class AscendConfig:
    def __init__(self, vllm_config):
        additional_config = vllm_config.additional_config or {}
        self.enable_mlapo = self._get_config_value(
            additional_config,
            "enable_mlapo",
            "X_ENABLE_MLAPO",
            ascend_envs.X_ENABLE_MLAPO,
        )  # AGAIN

    @staticmethod
    def _get_config_value(additional_config, config_key, env_key, env_value: Any) -> Any:
        if config_key in additional_config:
            return additional_config[config_key]
        if env_key in os.environ:
            print(f"{config_key} falls back to {env_key}")
        return env_value


_ASCEND_CONFIG: AscendConfig | None = None


def init_ascend_config(vllm_config):
    global _ASCEND_CONFIG
    new_config = AscendConfig(vllm_config)
    _ASCEND_CONFIG = new_config
    return _ASCEND_CONFIG


def clear_ascend_config():
    global _ASCEND_CONFIG
    _ASCEND_CONFIG = None


def get_ascend_config():
    global _ASCEND_CONFIG
    if _ASCEND_CONFIG is None:
        raise RuntimeError("Ascend config is not initialized.")
    return _ASCEND_CONFIG
"""

# vllm_ascend/utils.py:39: the accessor imported again, from where attention/utils.py takes it.
UTILS = """\
from pkg.ascend_config import get_ascend_config


def is_a5():
    return False
"""

# vllm_ascend/attention/utils.py:520-530.
ATTENTION_UTILS = """\
from pkg.utils import get_ascend_config, is_a5


def enabling_mlapo(vllm_config) -> bool:
    config_val = get_ascend_config().enable_mlapo
    if is_a5():
        return bool(config_val)
    is_decode_instance = vllm_config.kv_transfer_config is not None
    return bool(config_val and is_decode_instance)
"""

# vllm_ascend/device/device_op.py:43, :305-350, :967, :1400-1409, :1878-1887.
DEVICE_OP = """\
import torch


class BaseDeviceAdaptor:
    @staticmethod
    def mla_preprocess_only_decode(atten_obj, hidden_states):
        out = torch.empty_like(hidden_states)
        torch.ops._C_ascend.mla_preprocess(hidden_states, atten_obj.wd_qkv, out)
        return out


class A5DeviceAdaptor(BaseDeviceAdaptor):
    pass


def get_device_adaptor():
    if torch.npu.get_device_name() == "A5":
        return A5DeviceAdaptor
    return BaseDeviceAdaptor


DeviceOperator: type["BaseDeviceAdaptor"] = get_device_adaptor()
"""

# vllm_ascend/attention/mla_v1.py:741, :1718-1727.
MLA = """\
from pkg.attention.utils import enabling_mlapo
from pkg.device_op import DeviceOperator


class AscendMLAImpl:
    def __init__(self, vllm_config):
        self.vllm_config = vllm_config
        self.enable_mlapo = enabling_mlapo(self.vllm_config)

    def forward(self, hidden_states):
        if self.enable_mlapo:
            return DeviceOperator.mla_preprocess_only_decode(self, hidden_states)
        return self._mla_preprocess(hidden_states)

    def _mla_preprocess(self, hidden_states):
        return hidden_states @ self.wd_qkv
"""


# vllm_ascend/utils.py:263-264: the config bound to a local first.
ATTENTION_UTILS_LOCAL = ATTENTION_UTILS.replace(
    "    config_val = get_ascend_config().enable_mlapo\n",
    "    config = get_ascend_config()\n    config_val = config.enable_mlapo\n",
)


def _tree(again: str = "", config: str = CONFIG, reader: str = ATTENTION_UTILS) -> dict[str, str]:
    return {
        "pkg/__init__.py": "",
        "pkg/envs.py": ENVS,
        "pkg/ascend_config.py": config.replace("  # AGAIN", again),
        "pkg/utils.py": UTILS,
        "pkg/attention/__init__.py": "",
        "pkg/attention/utils.py": reader,
        "pkg/device_op.py": DEVICE_OP,
        "pkg/attention/mla_v1.py": MLA,
    }


@pytest.mark.parametrize("reader", [ATTENTION_UTILS, ATTENTION_UTILS_LOCAL], ids=["call", "local"])
def test_a_field_of_the_kept_config_read_through_its_accessor_is_followed(
    tmp_path: Path, reader: str
) -> None:
    knob = scanned_knob(tmp_path, _tree(reader=reader), "X_ENABLE_MLAPO")
    assert knob.role is Role.KERNEL, knob.role_reason
    assert knob.off_value == "0"
    assert knob.role_reason is not None
    assert "pkg/attention/mla_v1.py:11" in knob.role_reason
    assert "torch.ops._C_ascend.mla_preprocess at pkg/device_op.py:8" in knob.role_reason


def test_a_field_the_class_binds_again_is_not_followed(tmp_path: Path) -> None:
    # ascend_config.py:160-185: enable_fused_mc2 is set to 0 again under a check of the
    # model; what the accessor gives then is not the variable's value alone.
    again = "\n        if vllm_config.model_config is None:\n            self.enable_mlapo = 0"
    knob = scanned_knob(tmp_path, _tree(again), "X_ENABLE_MLAPO")
    assert knob.role is Role.UNKNOWN


def test_a_global_bound_to_another_object_too_is_no_kept_instance(tmp_path: Path) -> None:
    config = CONFIG.replace(
        "    _ASCEND_CONFIG = None\n", "    _ASCEND_CONFIG = vllm_config_default()\n"
    ).replace("def clear_ascend_config():", "def clear_ascend_config(vllm_config_default):")
    knob = scanned_knob(tmp_path, _tree(config=config), "X_ENABLE_MLAPO")
    assert knob.role is Role.UNKNOWN


# device/device_op.py as above, with the module the build writes (setup.py:157-165 writes
# vllm_ascend/_build_info.py) read on both sides: device/device_config.py:29-41.
DEVICE_CONFIG = """\
def get_device_type():
    from pkg import _build_info

    device_type = getattr(_build_info, "__device_type__", None)
    if device_type is not None:
        return device_type.upper()
    return "A2"
"""

SWITCH = """\
import os

from pkg.device_config import get_device_type
from pkg.device_op import DeviceOperator


def preprocess(atten_obj, hidden_states):
    if os.getenv("X_FUSED_PREPROCESS", "1") == "1":
        if get_device_type() == "A5":
            hidden_states = hidden_states.contiguous()
        return DeviceOperator.mla_preprocess_only_decode(atten_obj, hidden_states)
    if get_device_type() == "A5":
        hidden_states = hidden_states.float()
    return hidden_states @ atten_obj.wd_qkv
"""


def test_a_method_of_the_class_a_module_level_factory_returns_is_followed(
    tmp_path: Path,
) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/device_op.py": DEVICE_OP,
        "pkg/device_config.py": DEVICE_CONFIG,
        "pkg/switch.py": SWITCH,
    }
    knob = scanned_knob(tmp_path, files, "X_FUSED_PREPROCESS")
    assert knob.role is Role.KERNEL, knob.role_reason
    assert knob.off_value == "0"
    assert knob.role_reason is not None
    assert "calls BaseDeviceAdaptor.mla_preprocess_only_decode" in knob.role_reason


def test_code_the_tree_lacks_that_only_what_runs_instead_calls_still_blocks(
    tmp_path: Path,
) -> None:
    lost_side = (
        '        if get_device_type() == "A5":\n'
        "            hidden_states = hidden_states.contiguous()\n"
    )
    switch = SWITCH.replace(lost_side, "")
    assert switch != SWITCH
    files = {
        "pkg/__init__.py": "",
        "pkg/device_op.py": DEVICE_OP,
        "pkg/device_config.py": DEVICE_CONFIG,
        "pkg/switch.py": switch,
    }
    knob = scanned_knob(tmp_path, files, "X_FUSED_PREPROCESS")
    assert knob.role is not Role.KERNEL
