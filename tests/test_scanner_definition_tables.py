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


LOOP = """
import os

_DEFS = {
PAD
    "size": {"type": int, "default": 4},
    KEYS
}


def update(config):
    def env_name_of(attr):
        return f"TOY_{attr.upper()}"

    for name in _DEFS:
        env_name = env_name_of(name)
        value = os.getenv(env_name)
FILLER
"""


def test_a_loop_over_a_long_table_in_a_long_file_reads_every_key(tmp_path: Path) -> None:
    pad = "\n".join(f'    "pad_{i}": {{"type": int, "default": {i}}},' for i in range(300))
    filler = "\n".join(f"def filler_{i}(x):\n    return x + {i}\n" for i in range(2000))
    source = LOOP.replace("PAD", pad).replace("KEYS", "").replace("FILLER", filler)
    write_tree(tmp_path, {"config.py": source})
    result = scan([tmp_path], root=tmp_path)
    knobs = {k.name: k for k in result.knobs}
    assert len(knobs) == 301
    (site,) = knobs["TOY_SIZE"].sites
    assert (site.line, site.column, site.default, site.gate.kind, site.function) == (
        315,
        17,
        "4",
        GateKind.VALUE,
        "update",
    )
    assert result.dynamic == ()


def test_a_loop_over_a_table_with_a_key_not_known_stays_one_dynamic_read(
    tmp_path: Path,
) -> None:
    source = LOOP.replace("PAD", "").replace("KEYS", '"fast_" + SUFFIX: {},')
    write_tree(tmp_path, {"config.py": source.replace("FILLER", "")})
    result = scan([tmp_path], root=tmp_path)
    assert result.knobs == ()
    assert [(d.line, d.column, d.reason) for d in result.dynamic] == [
        (16, 17, "the name comes from 'env_name', a loop over data not known statically")
    ]
