"""A tiny triton: knobs read through a compiled module's getenv."""

from . import knobs
from .runtime import driver

__all__ = ["driver", "knobs"]
