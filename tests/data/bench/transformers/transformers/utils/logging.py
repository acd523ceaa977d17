import logging
import os

_default_log_level = logging.WARNING


def _get_default_logging_level():
    env_level_str = os.getenv("TRANSFORMERS_VERBOSITY", None)
    if env_level_str:
        return logging.getLevelNamesMapping().get(env_level_str.upper(), _default_log_level)
    return _default_log_level
