import os


def _env_truthy(name, default="0"):
    return os.environ.get(name, default) not in ("0", "false", "")


USE_SINKHORN = _env_truthy("PRIMUS_SINKHORN_TRITON", "1")
#              ^ PRIMUS_SINKHORN_TRITON on default="1" off="0" read=wrapper via=gates._env_truthy
