from .utils import is_env_variable_true


def load_in_background(tensors):
    if is_env_variable_true("HF_DEACTIVATE_ASYNC_LOAD"):
        return [tensor() for tensor in tensors]
    return tensors
