# sglang 0.5.23, sglang/srt/debug_utils/dumper.py:36 and :136: a frozen dataclass whose
# base's classmethod fills every field from the environment by a loop over fields(cls),
# the variable's name built by a classmethod from a prefix the subclass returns; a bool
# field is parsed by the base's own words ("true", "1" after lower()).
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields
from typing import Optional


@dataclass(frozen=True)
class _Base(ABC):
    @classmethod
    @abstractmethod
    def _env_prefix(cls) -> str: ...

    @classmethod
    def _env_name(cls, field_name: str) -> str:
        return f"{cls._env_prefix()}{field_name.upper()}"

    @classmethod
    def from_env(cls) -> "_Base":
        return cls(**{f.name: cls._read(cls._env_name(f.name), f.default) for f in fields(cls)})

    @classmethod
    def _read(cls, env_name: str, default):
        return cls._convert(os.getenv(env_name), default)

    @staticmethod
    def _convert(raw, default):
        if raw is None or not raw.strip():
            return default
        if isinstance(default, bool):
            return raw.lower() in ("true", "1")
        return raw


@dataclass(frozen=True)
class ProbeConfig(_Base):
    enable: bool = False
#   ^ PROBE_ENABLE off default="False" off="0" function=ProbeConfig read=setting via=pkg.config.ProbeConfig
    use_fused_dump: bool = True
#   ^ PROBE_USE_FUSED_DUMP on default="True" off="0" function=ProbeConfig read=setting via=pkg.config.ProbeConfig
    dir: str = "/tmp/probe"
#   ^ PROBE_DIR none default="/tmp/probe" function=ProbeConfig read=setting via=pkg.config.ProbeConfig
    filter: Optional[str] = None
#   ^ PROBE_FILTER none function=ProbeConfig read=setting via=pkg.config.ProbeConfig
    timeout: int = field(default=60)
#   ^ PROBE_TIMEOUT none default="60" function=ProbeConfig read=setting via=pkg.config.ProbeConfig

    @classmethod
    def _env_prefix(cls) -> str:
        return "PROBE_"
