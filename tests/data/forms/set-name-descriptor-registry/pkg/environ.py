# sglang 0.5.23, sglang/srt/environ.py: EnvField (:45) takes the variable's name from the
# attribute it is assigned to (__set_name__), its subclasses (EnvBool :143, EnvInt :153)
# convert the value, and class Envs (:251) declares ~770 variables; envs = Envs() (:2178).
import os
import warnings


def _default_hip():
    # sglang/srt/environ.py:11: whether torch was built for ROCm, asked when first read.
    return False


class EnvField:
    def __init__(self, default, secret=False):
        self.default = default
        self.secret = secret

    def __set_name__(self, owner, name):
        self.name = name

    def parse(self, value):
        raise NotImplementedError()

    def _resolve_default(self):
        return self.default() if callable(self.default) else self.default

    def get(self):
        value = os.getenv(self.name)
        if value is None:
            return self._resolve_default()
        try:
            return self.parse(value)
        except ValueError as e:
            default = self._resolve_default()
            warnings.warn(f"Invalid value for {self.name}: {e}")
            return default

    def is_set(self):
        return self.name in os.environ

    def set(self, value):
        os.environ[self.name] = str(value)


class EnvBool(EnvField):
    def parse(self, value):
        value = value.lower()
        if value in ["true", "1", "yes", "y"]:
            return True
        if value in ["false", "0", "no", "n"]:
            return False
        raise ValueError(f'"{value}" is not a valid boolean value')


class EnvInt(EnvField):
    def parse(self, value):
        return int(value)


class Envs:
    SGLANG_ENABLE_DETERMINISTIC_INFERENCE = EnvBool(False)
#                                           ^ SGLANG_ENABLE_DETERMINISTIC_INFERENCE off default="False" off="0" function=Envs read=descriptor via=pkg.environ.EnvBool
    SGLANG_ENABLE_FUSED_MOE = EnvBool(True)
#                             ^ SGLANG_ENABLE_FUSED_MOE on default="True" off="0" function=Envs read=descriptor via=pkg.environ.EnvBool
    SGLANG_MOE_BLOCK = EnvInt(64)
#                      ^ SGLANG_MOE_BLOCK none default="64" function=Envs read=descriptor via=pkg.environ.EnvInt
    SGLANG_DP_USE_REDUCE_SCATTER = EnvBool(_default_hip)
#                                  ^ SGLANG_DP_USE_REDUCE_SCATTER none kind=boolean off="0" function=Envs read=descriptor via=pkg.environ.EnvBool


envs = Envs()
