# vllm/envs.py:360 and :2245: a small function of the same file converts the value, and
# the gate is judged by what it returns (unset: None, the code decides). A function that
# loops is no converter: the value goes out of sight.
import os
from typing import Any, Callable


def maybe_convert_bool(value: str | None) -> bool | None:
    if value is None:
        return None
    return bool(int(value))


def first_flag_bool(value: str | None) -> bool:
    for part in (value or "").split(","):
        return part == "1"
    return False


environment_variables: dict[str, Callable[[], Any]] = {
    "PRIMUS_DIRECT_A2A": lambda: maybe_convert_bool(os.getenv("PRIMUS_DIRECT_A2A")),
    #                                               ^ PRIMUS_DIRECT_A2A none kind=boolean off="0" function=<lambda> read=getenv
    "PRIMUS_LOOPED": lambda: first_flag_bool(os.getenv("PRIMUS_LOOPED")),
    #                                        ^ PRIMUS_LOOPED none kind=unknown function=<lambda> read=getenv
}
