"""Tables of definitions handed to a factory that reads a variable per key (lmcache's
``create_config_class``, ``lmcache/v1/config_base.py:218``). The form with positions is in
tests/data/forms/definition-table-factory; these are the prefix a call passes, and a key
the scan cannot read: one dynamic read for it, never dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, scan
from tests.conftest import write_tree

FACTORY = """
import os


def make(name, definitions, aliases=None, env_prefix="TOY_"):
    aliases = aliases or {}

    def _from_env(cls):
        def env_name_of(attr):
            return f"{env_prefix}{attr.upper()}"

        for key in list(definitions.keys()) + list(aliases.keys()):
            value = os.getenv(env_name_of(key))
    return _from_env
"""

CALLER = """
from factory import make

SUFFIX = compute()

_DEFS = {
    "size": {"type": int, "default": 4},
    "fast_" + SUFFIX: {"type": bool, "default": True},
}

Controller = make("Controller", definitions=_DEFS, env_prefix="TOY_CONTROLLER_")
"""


def test_a_key_not_known_is_one_dynamic_read_and_the_prefix_is_the_call_s(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"factory.py": FACTORY, "caller.py": CALLER})
    result = scan([tmp_path], root=tmp_path)
    assert [
        (k.name, s.path, s.line, s.column, s.gate.kind, s.default, s.function)
        for k in result.knobs
        for s in k.sites
    ] == [("TOY_CONTROLLER_SIZE", "caller.py", 6, 5, GateKind.VALUE, "4", "Controller")]
    assert [(d.path, d.line, d.column, d.expression, d.reason) for d in result.dynamic] == [
        (
            "caller.py",
            7,
            5,
            '_DEFS["fast_" + SUFFIX]',
            "make() reads a variable per key of _DEFS, and the key is not a string the "
            "scan can read in _DEFS",
        )
    ]


LOOSE_FACTORY = """
import os

NAMES = load_names()


def make(name, definitions, env_prefix="TOY_"):
    def _from_env(cls):
        for key in NAMES:
            value = os.getenv(f"{env_prefix}{key.upper()}")
    return _from_env
"""


def test_a_factory_looping_over_what_the_call_does_not_pass_is_left_quietly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(
        tmp_path,
        {
            "factory.py": LOOSE_FACTORY,
            "caller.py": 'from factory import make\n\nC = make("C", definitions={"size": {}})\n',
        },
    )
    result = scan([tmp_path], root=tmp_path)
    assert [k.name for k in result.knobs] == []
    assert [(d.path, d.line, d.column, d.reason) for d in result.dynamic] == [
        ("caller.py", 3, 5, "the name passed to make() is not known here")
    ]
    assert capsys.readouterr() == ("", "")
