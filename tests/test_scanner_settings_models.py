"""Settings models (pydantic's ``BaseSettings``): each field declares a variable. The
forms with positions are in tests/data/forms/pydantic-settings-model; these are the
gates a field's type and default give, and what stays dynamic, never dropped."""

from __future__ import annotations

from pathlib import Path

from scanner import GateKind, scan
from tests.conftest import write_tree

MODEL = """
from typing import Optional

from pydantic_settings import BaseSettings, SettingsConfigDict

PREFIX = open("prefix").read()


class Tuned(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TUNE_")

    fused: bool = True
    maybe: Optional[bool] = None
    required: bool
    size: int = -4


class Computed(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX)

    level: int = 1
"""


def test_a_field_gives_its_variable_the_verdict_of_its_type(tmp_path: Path) -> None:
    # No word of `os` in the file: the model is found by its base.
    write_tree(tmp_path, {"m.py": MODEL})
    result = scan([tmp_path], root=tmp_path)
    gates = {
        k.name: (s.line, s.column, s.gate.kind, s.default_on, s.default, s.reason)
        for k in result.knobs
        for s in k.sites
    }
    assert gates == {
        "TUNE_FUSED": (11, 5, GateKind.BOOLEAN, True, "True", None),
        "TUNE_MAYBE": (
            12,
            5,
            GateKind.UNKNOWN,
            None,
            None,
            "its default is None, not a bool: the code decides",
        ),
        "TUNE_REQUIRED": (
            13,
            5,
            GateKind.UNKNOWN,
            None,
            None,
            "the field has no default: the model cannot be built unset",
        ),
        "TUNE_SIZE": (14, 5, GateKind.VALUE, None, "-4", None),
    }
    reason = "the model's env_prefix is not a string the scan can read"
    assert [(d.line, d.expression, d.reason) for d in result.dynamic] == [
        (20, "level: int = 1", reason)
    ]
