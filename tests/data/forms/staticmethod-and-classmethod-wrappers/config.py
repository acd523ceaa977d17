# A helper of the class's own reads the variable its parameter names. sglang 0.5.23,
# sglang/srt/debug_utils/dumper.py:89: a classmethod called as cls._parse_env_field(...);
# the same helper as a staticmethod is called through self. or cls. with no bound argument.
import os


class Config:
    @staticmethod
    def _flag(name, default="1"):
        return os.environ.get(name, default) != "0"

    @classmethod
    def _on(cls, name):
        return os.environ.get(name, "0") == "1"

    def use_triton(self):
        return self._flag("PRIMUS_STATIC_TRITON")
#              ^ PRIMUS_STATIC_TRITON on default="1" off="0" function=Config.use_triton read=wrapper via=config.Config._flag

    @classmethod
    def fused(cls):
        return cls._flag("PRIMUS_STATIC_FUSED", "0")
#              ^ PRIMUS_STATIC_FUSED off default="0" off="0" function=Config.fused read=wrapper via=config.Config._flag

    def compiled(self):
        return self._on("PRIMUS_CLS_COMPILE")
#              ^ PRIMUS_CLS_COMPILE off default="0" off="0" function=Config.compiled read=wrapper via=config.Config._on


def outside():
    return Config._on("PRIMUS_CLS_OUTSIDE")
#          ^ PRIMUS_CLS_OUTSIDE off default="0" off="0" function=outside read=wrapper via=config.Config._on
