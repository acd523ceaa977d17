# pytorch/helion ef091f4, helion/runtime/settings.py:85-98 (_env_get_optional_int and
# _env_get_int, a wrapper of it), :111-123 (_env_get_bool), :398-403 and :469-471 (fields
# whose default_factory is a functools.partial of a wrapper, called when Settings() is).
import dataclasses
import functools
import os
from functools import partial

_TRUE_LITERALS = frozenset(("1", "true", "yes", "on"))
_FALSE_LITERALS = frozenset(("0", "false", "no", "off"))


def _env_get_optional_int(var_name: str) -> int | None:
    value = os.environ.get(var_name)
    if value is None or (value := value.strip()) == "":
        return None
    return int(value)


def _env_get_int(var_name: str, default: int) -> int:
    result = _env_get_optional_int(var_name)
    return default if result is None else result


def _env_get_bool(var_name: str, default: bool) -> bool:
    value = os.environ.get(var_name)
    if value is None or (value := value.strip()) == "":
        return default
    lowered = value.lower()
    if lowered in _TRUE_LITERALS:
        return True
    if lowered in _FALSE_LITERALS:
        return False
    raise ValueError(f"{var_name} must be a boolean, got {value!r}")


@dataclasses.dataclass
class Settings:
    fast_math: bool = dataclasses.field(
        default_factory=functools.partial(_env_get_bool, "PKG_FAST_MATH", False)
        #               ^ PKG_FAST_MATH none default="False" function=Settings read=wrapper via=pkg.settings._env_get_bool
    )
    best_of_k: int = dataclasses.field(
        default_factory=functools.partial(
        #               ^ PKG_BEST_OF_K none default="1" function=Settings read=wrapper via=pkg.settings._env_get_int
            _env_get_int,
            "PKG_BEST_OF_K",
            1,
        )
    )


# A partial bound to a name and called later reads when it is called.
_static_shapes = partial(_env_get_bool, "PKG_STATIC_SHAPES", True)
#                ^ PKG_STATIC_SHAPES none default="True" read=wrapper via=pkg.settings._env_get_bool
# The same wrapper called directly: the same verdict and default.
_direct = _env_get_bool("PKG_DIRECT", True)
#         ^ PKG_DIRECT none default="True" read=wrapper via=pkg.settings._env_get_bool


def static_shapes() -> bool:
    return _static_shapes()
