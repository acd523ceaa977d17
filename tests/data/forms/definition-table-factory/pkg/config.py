# lmcache 0.5.6, lmcache/v1/config.py:57, :88 and :1057: a table of definitions (the
# values are not literals: types and converters), an alias table, and the factory's
# call at module level with the default prefix.
from typing import Optional

from pkg.config_base import create_config_class, to_bool

_ALIASES = {
    "fused_gather": "use_fused_gather",
#   ^ TOY_FUSED_GATHER none kind=unknown default="True" function=ToyConfig read=setting via=pkg.config_base.create_config_class
}

_DEFINITIONS: dict = {
    "chunk_size": {"type": int, "default": 256, "env_converter": int},
#   ^ TOY_CHUNK_SIZE none default="256" function=ToyConfig read=setting via=pkg.config_base.create_config_class
    "use_fused_gather": {"type": bool, "default": True, "env_converter": to_bool},
#   ^ TOY_USE_FUSED_GATHER none kind=unknown default="True" function=ToyConfig read=setting via=pkg.config_base.create_config_class
    "remote_url": {"type": Optional[str], "default": None, "env_converter": str},
#   ^ TOY_REMOTE_URL none function=ToyConfig read=setting via=pkg.config_base.create_config_class
}

ToyConfig = create_config_class("ToyConfig", _DEFINITIONS, aliases=_ALIASES)
