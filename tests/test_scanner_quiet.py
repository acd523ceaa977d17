"""A call of a wrapper is a site of a variable the wrapper reads by a name of its own only
when what the call gives back may depend on that read (scanner/interpret/quiet.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, scan
from tests.conftest import REPO, write_tree

FORMS = REPO / "tests" / "data" / "forms"


def _sites(root: Path, name: str) -> list[tuple[str, int, int, GateKind, str | None]]:
    (knob,) = [k for k in scan([root], root=root).knobs if k.name == name]
    return [(s.path, s.line, s.column, s.gate.kind, s.via) for s in knob.sites]


def test_a_call_that_gives_nothing_back_from_the_read_is_no_site() -> None:
    # vLLM's pin_nccl_env: NCCL_NO_CACHE read as a value behind a test the scanner cannot
    # decide, written back, nothing returned. The read in the body is the one site.
    root = FORMS / "wrapper-reading-a-name-of-its-own"
    (knob,) = [k for k in scan([root], root=root).knobs if k.name == "PRIMUS_NO_CACHE"]
    assert knob.default_on is None and not knob.conflict
    assert [(s.path, s.line, s.column, s.gate.kind, s.gate.reason) for s in knob.sites] == [
        ("pkg/nccl.py", 19, 20, GateKind.VALUE, None)
    ]
    # The names the call passes are still read through its parameter, at the call.
    assert _sites(root, "PRIMUS_PIN_CHANNELS") == [
        ("pkg/invariance.py", 5, 5, GateKind.VALUE, "pkg.nccl.pin_env")
    ]


def test_a_call_that_gives_back_what_the_read_decides_stays_a_site() -> None:
    root = FORMS / "wrapper-returning-a-name-of-its-own"
    (knob,) = [k for k in scan([root], root=root).knobs if k.name == "PRIMUS_KERNEL_CACHE"]
    assert knob.default_on is True
    assert [(s.path, s.line, s.column, s.gate.kind, s.via) for s in knob.sites] == [
        ("pkg/flags.py", 5, 13, GateKind.VALUE, None),
        ("pkg/mlp.py", 5, 12, GateKind.BOOLEAN, "pkg.flags.fused"),
    ]


WRAPPER = """import os

STORE = {{}}


def pin(name):
    previous = os.environ.get(name)
{body}
    return previous
"""


@pytest.mark.parametrize(
    "body",
    [
        # The value decides a branch, is returned, stored beyond the call, handed to a
        # call that may keep it, or read so that an unset variable raises.
        '    if os.environ.get("PRIMUS_OWN"):\n        value = "2"',
        '    own = os.environ.get("PRIMUS_OWN")\n    if own:\n        pass',
        '    own = os.environ.get("PRIMUS_OWN")\n    previous = own',
        '    STORE["own"] = os.environ.get("PRIMUS_OWN")',
        '    global STORE\n    STORE = os.environ.get("PRIMUS_OWN")',
        '    print(os.environ.get("PRIMUS_OWN"))',
        '    own = int(os.environ.get("PRIMUS_OWN", "0"))',
        '    own = os.environ["PRIMUS_OWN"]',
        '    own = os.environ.get("PRIMUS_OWN")\n    def inner():\n        return own',
    ],
)
def test_a_call_stays_a_site_unless_the_read_is_shown_to_give_nothing_back(
    tmp_path: Path, body: str
) -> None:
    write_tree(
        tmp_path,
        {"w.py": WRAPPER.format(body=body), "use.py": 'from w import pin\n\npin("PRIMUS_X")\n'},
    )
    paths = {s[0] for s in _sites(tmp_path, "PRIMUS_OWN")}
    assert paths == {"use.py", "w.py"}


def test_a_call_passing_the_name_stays_a_site(tmp_path: Path) -> None:
    body = '    own = os.environ.get("PRIMUS_OWN")\n    os.environ["PRIMUS_OWN"] = own or ""'
    write_tree(
        tmp_path,
        {
            "w.py": WRAPPER.format(body=body),
            "use.py": 'from w import pin\n\npin("PRIMUS_X")\npin("PRIMUS_OWN")\n',
        },
    )
    sites = _sites(tmp_path, "PRIMUS_OWN")
    assert [(p, line) for p, line, *_ in sites if p == "use.py"] == [("use.py", 4)]
