import os


def patch_size_asserts(config, op_name):
    if op_name == "linalg_eigvals" and "TORCHINDUCTOR_SIZE_ASSERTS" not in os.environ:
        return config.patch(size_asserts=False)
    return config
