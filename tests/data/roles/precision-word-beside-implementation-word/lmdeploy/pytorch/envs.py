# lmdeploy 0.18.0 lmdeploy/pytorch/envs.py:6-25, 92-112, 198-213
import contextlib
import os


def env_to_bool(env_var: str, default: bool = False, *, true_values=('true', '1', 'yes', 'on'),
                false_values=('false', '0', 'no', 'off')):
    value = os.getenv(env_var)
    if value is None:
        return default
    value = value.lower().strip()
    if value in true_values:
        return True
    elif value in false_values:
        return False
    raise ValueError(f'{env_var}={value}')


@contextlib.contextmanager
def set_envs():
    yield


with set_envs():
    # kernel optimizations
    static_fp8_use_scaled_mm = env_to_bool('LMDEPLOY_STATIC_FP8_USE_SCALED_MM', False)
    static_fp8_use_compiled_quant = env_to_bool('LMDEPLOY_STATIC_FP8_USE_COMPILED_QUANT', False)
