"""Dataclasses filled from the environment by a loop over their ``fields()`` (sglang's
dumper, ``sglang/srt/debug_utils/dumper.py:36``): each field declares a variable. The form
with positions is in tests/data/forms/dataclass-filled-by-fields-loop; these are the
verdicts the parser gives or leaves unknown, and what stays dynamic, one read per field,
never dropped."""

from __future__ import annotations

from pathlib import Path

from scanner import GateKind, scan
from tests.conftest import write_tree

BASE = """
import os
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Base:
    @classmethod
    def _env_prefix(cls) -> str:
        return PREFIX

    @classmethod
    def from_env(cls):
        return cls(**{f.name: cls._read(f"{cls._env_prefix()}{f.name.upper()}", f.default)
                      for f in fields(cls)})

    @classmethod
    def _read(cls, env_name, default):
        raw = os.getenv(env_name)
        return default if raw is None else PARSE(raw, default)
"""

COMPUTED = """
PREFIX = open("prefix").read()


@dataclass(frozen=True)
class Knobs(Base):
    fused: bool = True
    size: int = 4
"""


def test_a_prefix_not_known_is_one_dynamic_read_per_field(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": BASE + COMPUTED})
    result = scan([tmp_path], root=tmp_path)
    assert result.knobs == ()
    assert [(d.line, d.column, d.expression, d.function, d.reason) for d in result.dynamic] == [
        (
            26,
            5,
            'fused: f"{cls._env_prefix()}{f.name.upper()}"',
            "Knobs",
            "the loop over fields() names each field's variable, and 'PREFIX' is not a constant",
        ),
        (
            27,
            5,
            'size: f"{cls._env_prefix()}{f.name.upper()}"',
            "Knobs",
            "the loop over fields() names each field's variable, and 'PREFIX' is not a constant",
        ),
    ]


def test_a_bool_the_scan_cannot_see_parsed_is_unknown(tmp_path: Path) -> None:
    # PARSE is not the class's own `isinstance(default, bool)` branch: no words to judge by.
    write_tree(tmp_path, {"m.py": BASE + COMPUTED.replace('open("prefix").read()', '"K_"')})
    result = scan([tmp_path], root=tmp_path)
    assert result.dynamic == ()
    gates = {
        k.name: (k.sites[0].gate.kind, k.sites[0].default, k.sites[0].reason) for k in result.knobs
    }
    assert gates == {
        "K_FUSED": (
            GateKind.UNKNOWN,
            "True",
            "the class's parser of a bool field is not one the scan reads",
        ),
        "K_SIZE": (GateKind.VALUE, "4", None),
    }


def test_an_abstract_base_with_fields_is_not_built_itself(tmp_path: Path) -> None:
    source = BASE.replace("return PREFIX", "raise NotImplementedError").replace(
        "    @classmethod\n    def _env_prefix",
        "    @classmethod\n    @abstractmethod\n    def _env_prefix",
    )
    source = "from abc import abstractmethod\n" + source.replace(
        "class Base:\n", "class Base:\n    shared: int = 1\n"
    )
    source += (
        "\n\n@dataclass(frozen=True)\nclass Knobs(Base):\n"
        '    @classmethod\n    def _env_prefix(cls):\n        return "K_"\n'
    )
    write_tree(tmp_path, {"m.py": source})
    result = scan([tmp_path], root=tmp_path)
    assert result.dynamic == ()
    assert [(k.name, k.sites[0].line, k.sites[0].function) for k in result.knobs] == [
        ("K_SHARED", 9, "Knobs")
    ]
