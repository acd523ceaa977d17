from .import_utils import (
    ENV_VARS_TRUE_VALUES,
    USE_TORCH_XLA,
    is_env_variable_false,
    is_env_variable_true,
)

__all__ = ["ENV_VARS_TRUE_VALUES", "USE_TORCH_XLA", "is_env_variable_false", "is_env_variable_true"]
