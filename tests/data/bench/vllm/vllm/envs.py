from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    VLLM_HOST_IP: str = ""
    VLLM_PORT: int | None = None
    VLLM_USE_TRITON_FLASH_ATTN: bool = True
    VLLM_CUDAGRAPH_MODE: bool = True
    VLLM_ATTENTION_BACKEND: str | None = None
    VLLM_KV_CACHE_LAYOUT: str | None = None
    VLLM_TPU_USING_PATHWAYS: bool = False


def get_vllm_port() -> int | None:
    if "VLLM_PORT" not in os.environ:
        return None
    port = os.environ["VLLM_PORT"]
    if port.isdigit():
        return int(port)
    raise ValueError(f"VLLM_PORT '{port}' must be a valid integer")


def env_with_choices(
    env_name: str, default: str | None, choices: list[str], case_sensitive: bool = True
) -> Callable[[], str | None]:

    def _get_validated_env() -> str | None:
        value = os.getenv(env_name)
        if value is None:
            return default
        check_value = value if case_sensitive else value.lower()
        check_choices = choices if case_sensitive else [c.lower() for c in choices]
        if check_value not in check_choices:
            raise ValueError(f"Invalid value '{value}' for {env_name}.")
        return value

    return _get_validated_env


environment_variables: dict[str, Callable[[], Any]] = {
    # the address of this node, for the distributed runtime
    "VLLM_HOST_IP": lambda: os.getenv("VLLM_HOST_IP", ""),
    "VLLM_PORT": get_vllm_port,
    "VLLM_USE_TRITON_FLASH_ATTN": lambda: (
        os.environ.get("VLLM_USE_TRITON_FLASH_ATTN", "True").lower() in ("true", "1")
    ),
    "VLLM_CUDAGRAPH_MODE": lambda: os.getenv("VLLM_CUDAGRAPH_MODE", "full") == "full",
    "VLLM_ATTENTION_BACKEND": env_with_choices(
        "VLLM_ATTENTION_BACKEND", None, ["FLASH_ATTN", "TRITON_ATTN"]
    ),
    "VLLM_KV_CACHE_LAYOUT": env_with_choices("VLLM_KV_CACHE_LAYOUT", None, ["NHD", "HND"]),
    # derived from JAX_PLATFORMS: never read by its own name
    "VLLM_TPU_USING_PATHWAYS": lambda: bool(
        "proxy" in os.getenv("JAX_PLATFORMS", "").lower()
    ),
}


def __getattr__(name: str) -> Any:
    if name in environment_variables:
        return environment_variables[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
