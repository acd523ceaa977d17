import os


def _discover_backends():
    backends = {}
    skip_entrypoints_env = os.environ.get("TRITON_BACKENDS_IN_TREE", "")
    if skip_entrypoints_env == "1":
        return backends
    return backends


backends = _discover_backends()
