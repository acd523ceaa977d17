"""Pure operations on known values: operators, string methods, safe builtins.

Every function here takes plain Python values and returns a value, ``RAISED``
when Python would raise, or ``UNKNOWN`` when computing it is not worth the risk
(a huge repetition, a huge power).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from scanner.interpret.values import RAISED, UNKNOWN

_LIMIT = 10_000  # the largest repetition or shift the evaluator computes

BINARY: dict[type[cst.BaseBinaryOp], Callable[[object, object], object]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Divide: operator.truediv,
    cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod,
    cst.Power: operator.pow,
    cst.BitAnd: operator.and_,
    cst.BitOr: operator.or_,
    cst.BitXor: operator.xor,
    cst.LeftShift: operator.lshift,
    cst.RightShift: operator.rshift,
}

COMPARE: dict[type[cst.BaseCompOp], Callable[[Any, Any], object]] = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}

# str methods without side effects whose result depends only on their arguments.
STR_METHODS = frozenset(
    {
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "casefold",
        "title",
        "capitalize",
        "swapcase",
        "startswith",
        "endswith",
        "isdigit",
        "isdecimal",
        "isnumeric",
        "isalpha",
        "isalnum",
        "replace",
        "removeprefix",
        "removesuffix",
        "split",
        "rsplit",
        "partition",
        "zfill",
        "format",
        "count",
        "find",
        "encode",
    }
)

_TRUE_WORDS = ("y", "yes", "t", "true", "on", "1")
_FALSE_WORDS = ("n", "no", "f", "false", "off", "0")


def binary(op: cst.BaseBinaryOp, left: object, right: object) -> object:
    """``left op right``, or RAISED / UNKNOWN."""
    fn = BINARY.get(type(op))
    if fn is None:
        return UNKNOWN
    if _too_big(op, left, right):
        return UNKNOWN
    return _guarded(fn, left, right)


def compare(op: cst.BaseCompOp, left: object, right: object) -> object:
    """``left op right`` for comparison operators (``is`` only against singletons)."""
    if isinstance(op, cst.Is | cst.IsNot):
        if not (_singleton(left) or _singleton(right)):
            return UNKNOWN
        same = left is right
        return same if isinstance(op, cst.Is) else not same
    fn = COMPARE.get(type(op))
    if fn is None:
        return UNKNOWN
    return _guarded(fn, left, right)


def unary(op: cst.BaseUnaryOp, operand: object) -> object:
    """``op operand`` for ``not``, ``-``, ``+`` and ``~``."""
    if isinstance(op, cst.Not):
        return _guarded(operator.not_, operand)
    if isinstance(op, cst.Minus):
        return _guarded(operator.neg, operand)
    if isinstance(op, cst.Plus):
        return _guarded(operator.pos, operand)
    if isinstance(op, cst.BitInvert):
        return _guarded(operator.invert, operand)
    return UNKNOWN


def str_method(receiver: str, name: str, args: Sequence[object]) -> object:
    """``receiver.name(*args)`` for the pure str methods in STR_METHODS."""
    if name not in STR_METHODS:
        return UNKNOWN
    if name == "zfill" and args and isinstance(args[0], int) and args[0] > _LIMIT:
        return UNKNOWN
    return _guarded(getattr(receiver, name), *args)


def strtobool(value: object) -> object:
    """``distutils.util.strtobool``: 1 for true words, 0 for false words, else raises."""
    if not isinstance(value, str):
        return RAISED
    word = value.lower()
    if word in _TRUE_WORDS:
        return 1
    if word in _FALSE_WORDS:
        return 0
    return RAISED


def _as_int(*args: object) -> object:
    return int(*args)  # type: ignore[call-overload]


def _as_float(*args: object) -> object:
    return float(*args)  # type: ignore[arg-type]


def _length(value: object) -> object:
    return len(value)  # type: ignore[arg-type]


NUMBERS: frozenset[Callable[..., object]] = frozenset({_as_int, _as_float})

BUILTINS: dict[str, Callable[..., object]] = {
    "int": _as_int,
    "float": _as_float,
    "bool": bool,
    "str": str,
    "len": _length,
    "tuple": tuple,
    "frozenset": frozenset,
    "set": frozenset,  # a set is only ever tested for membership here
    "list": tuple,
    "abs": abs,
    "callable": callable,  # of a plain value: False (a function value: see calls.py)
}


def config_var(name: object) -> object:
    """``sysconfig.get_config_var`` for the names whose value every POSIX system shares."""
    return _POSIX_CONFIG.get(name, UNKNOWN) if isinstance(name, str) else UNKNOWN


_POSIX_CONFIG = {"EXE": ""}

# Qualified names of library helpers with a known meaning.
FUNCTIONS: dict[str, Callable[..., object]] = {
    "distutils.util.strtobool": strtobool,
    "setuptools._distutils.util.strtobool": strtobool,
    "sysconfig.get_config_var": config_var,
}

# ``typing.cast(T, v)`` gives ``v`` back unchanged (it only tells a type checker its type).
CASTS: frozenset[str] = frozenset({"typing.cast", "typing_extensions.cast"})

# Library functions that take a filesystem path (qualified names, and the builtin
# ``open``): the site's value handed to one is a location (a library file, a cache
# folder), not a switch, whatever the name's words say.
PATH_FUNCTIONS: frozenset[str] = frozenset(
    f"{module}.{name}"
    for module, names in (
        ("os.path", "isfile isdir exists lexists islink realpath abspath expanduser expandvars"),
        ("os.path", "normpath join dirname basename getsize getmtime"),
        ("os", "access chdir listdir scandir walk makedirs mkdir rmdir stat remove unlink"),
        ("shutil", "rmtree copy copy2 copyfile copytree move"),
        ("pathlib", "Path"),
        ("glob", "glob"),
        ("io", "open"),
    )
    for name in names.split()
)
PATH_BUILTINS: frozenset[str] = frozenset({"open"})

_ACCESSOR_TRUE = frozenset({"1", "true", "on", "yes", "y"})


def accessor_bool(value: str) -> object:
    """What a ``getenv_bool``-style accessor answers for a set value: true for the on
    words in any case, false for anything else (Triton's ``getenv_bool`` does this)."""
    return value.lower() in _ACCESSOR_TRUE


def accessor_int(value: str) -> object:
    return _guarded(int, value)


def accessor_float(value: str) -> object:
    return _guarded(float, value)


# How a typed accessor turns a set value into what it answers (by its name's suffix).
ACCESSOR_CONVERSIONS: dict[str, Callable[[str], object]] = {
    "bool": accessor_bool,
    "int": accessor_int,
    "float": accessor_float,
}

_DICT_METHODS = frozenset({"get", "keys", "values", "items"})


def dict_method(receiver: dict[object, object], name: str, args: Sequence[object]) -> object:
    """``receiver.name(*args)`` for the reading methods of a dict (views as tuples)."""
    if name not in _DICT_METHODS:
        return UNKNOWN
    if name == "get":
        return _guarded(receiver.get, *args)
    if args:
        return RAISED
    return tuple(getattr(receiver, name)())


def call(fn: Callable[..., object], args: Sequence[object]) -> object:
    """``fn(*args)`` with exceptions turned into RAISED."""
    return _guarded(fn, *args)


def _guarded(fn: Callable[..., object], *args: object) -> object:
    try:
        return fn(*args)
    except Exception:
        return RAISED


def _singleton(value: object) -> bool:
    return value is None or value is True or value is False


def _too_big(op: cst.BaseBinaryOp, left: object, right: object) -> bool:
    if isinstance(op, cst.Multiply):
        counts = [v for v in (left, right) if isinstance(v, int)]
        sized = [v for v in (left, right) if isinstance(v, str | tuple | list)]
        return bool(counts and sized and abs(counts[0]) > _LIMIT)
    if isinstance(op, cst.Power | cst.LeftShift):
        return isinstance(right, int) and abs(right) > 64
    return False
