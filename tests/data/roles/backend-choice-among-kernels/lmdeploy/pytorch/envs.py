# lmdeploy 0.18.0 lmdeploy/pytorch/envs.py:73-85, 112, 182-184
import contextlib
import os


def env_to_choice(env_var: str, default: str, choices):
    value = os.getenv(env_var)
    if value is None:
        return default
    value = value.lower().strip()
    if value not in choices:
        raise ValueError(f"Invalid environment variable '{env_var}={value}'. Allowed values: {choices}")
    return value


@contextlib.contextmanager
def set_envs():
    yield


with set_envs():
    # blocked FP8 GEMM
    blocked_fp8_gemm_backend = env_to_choice('LMDEPLOY_BLOCKED_FP8_GEMM_BACKEND', 'auto',
                                             {'auto', 'deepgemm', 'gluon', 'triton'})
