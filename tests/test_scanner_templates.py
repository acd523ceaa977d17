"""Components of one shape analysed once (issue 18: a file of 10^5 reads in seconds).

A huge file's components that are the same code up to the names they read and
bind share one analysis (scanner/source/shapes.py, scanner/run/templates.py).
These tests hold the result against the whole-file analysis on families of
components where the shared analysis is right, and on families where it must not
be used (a dict's ``get``, a wrapper, a name said in a comment, a reason that
names a renamed function, names the conventions tell apart), and check which
components were analysed.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.source.narrow import text_lines
from scanner.source.shapes import shape
from scanner.source.split import plan
from tests.conftest import write_tree
from tests.grouped import whole_and_grouped
from tests.strategies import NAME, gate_sources

HEAD = """\
import os
import sys

D = {"A_1": "1", "A_2": "0"}


def flag(name):
    return os.environ.get(name, "0") == "1"


E = os.environ.get("E_1")

"""

# Each form is one family member: (index, a knob name) -> code.
Form = Callable[[int, str], str]
FORMS: dict[str, Form] = {
    "module": lambda at, name: f'M{at} = os.environ.get("{name}", "1") != "0"\n',
    "two on a line": lambda at, name: (
        f'T{at} = os.environ.get("{name}", "0") == "1" or os.getenv("Y{at}") == "yes"\n'
    ),
    "number": lambda at, name: f'N{at} = int(os.environ.get("{name}", "4")) * 2\n',
    "twice": lambda at, name: (
        f"def twice{at}():\n"
        f'    if "{name}" in os.environ:\n'
        f'        return os.environ["{name}"] == "1"\n'
        "    return False\n"
    ),
    # compared with what the code cannot know: stored, and not judged where it is used
    "stored": lambda at, name: f'S{at} = os.environ.get("{name}")\nU{at} = S{at} == sys.argv[0]\n',
    "write": lambda at, name: f'os.environ["{name}"] = "1"\n',
    "dynamic": lambda at, name: f"Y{at} = os.environ.get(sys.argv[1])\n",
    "dict": lambda at, name: f'G{at} = D.get("A_{at % 2 + 1}") == "1"\n',
    "wrapper": lambda at, name: f'W{at} = flag("{name}")\n',
    "commented": lambda at, name: f'C{at} = os.environ.get("{name}")  # {name}\n',
    # a helper that loops is no converter (scanner.source.narrow.is_converter): not followed
    "helper": lambda at, name: (
        f"def helper{at}(v):\n"
        "    for part in (v,):\n"
        "        return part\n"
        "    return v\n"
        f"def calls{at}():\n"
        f'    if helper{at}(os.environ.get("{name}")):\n'
        "        return 1\n"
        "    return 0\n"
    ),
}
TEMPLATES = ("module", "two on a line", "number", "twice", "write", "dynamic")


def _family(form: str, names: list[str]) -> str:
    return "\n\n".join(FORMS[form](at, name) for at, name in enumerate(names))


def _scan(text: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Scan ``text`` whole and in groups, check they agree, and give the texts of the
    groups analysed."""
    with tempfile.TemporaryDirectory() as folder:
        root = write_tree(Path(folder), {"generated.py": text})
        analysed: list[str] = []
        cut: list[bool] = []
        whole, grouped = whole_and_grouped(root, monkeypatch, cut, analysed)
    assert cut and all(cut)  # once per round (a wrapper found starts another)
    assert grouped == whole
    assert grouped.errors == ()
    return analysed


def _analysed(analysed: list[str], line: str) -> bool:
    return any(line in text.splitlines() for text in analysed)


@pytest.mark.parametrize("form", TEMPLATES)
def test_a_family_is_analysed_twice_and_moved_to_the_rest(
    form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Names of different lengths move every column after them on the line.
    names = ["X_1", "X_LONGER_NAME_2", "X_3", "X_4_FOUR", "X_5"]
    analysed = _scan(HEAD + _family(form, names), monkeypatch)
    firsts = [FORMS[form](at, name).splitlines()[0] for at, name in enumerate(names)]
    assert [_analysed(analysed, line) for line in firsts] == [True, True, False, False, False]


# The reasons of "stored" and "helper" name a renamed variable or function.
@pytest.mark.parametrize("form", ["dict", "wrapper", "commented", "helper", "stored"])
def test_a_family_the_analysis_could_tell_apart_is_analysed_in_full(
    form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = ["X_1", "X_2", "X_3", "X_4", "X_5"]
    analysed = _scan(HEAD + _family(form, names), monkeypatch)
    firsts = [FORMS[form](at, name).splitlines()[0] for at, name in enumerate(names)]
    assert all(_analysed(analysed, line) for line in firsts)


def test_names_the_conventions_tell_apart_do_not_share_an_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "disable" turns the polarity; launchers set LOCAL_RANK: each is its own family.
    names = ["X_FUSED_1", "X_DISABLE_FUSED_2", "X_FUSED_3", "LOCAL_RANK", "X_NO_FUSED_5"]
    names += ["X_FUSED_6", "SLURM_PROCID", "X_SKIP_FUSED_8"]
    analysed = _scan(HEAD + _family("module", names), monkeypatch)
    found = [
        _analysed(analysed, FORMS["module"](at, name).strip()) for at, name in enumerate(names)
    ]
    # Plain names (0, 2, 5) and names that say disable (1, 4, 7) are families of three,
    # whose third is moved; the two launch facts are too few to share an analysis.
    assert found == [True, True, True, True, True, False, True, False]


def test_the_shape_of_a_function_of_four_reads() -> None:
    text = (
        "import os\n\n"
        "def f000001():\n"
        '    v0 = os.environ.get("F_1_0", "0") == "1"\n'
        '    v1 = os.environ.get("F_1_1", "0") == "1"  # v1 of F_1_1\n'
        "    return v0\n"
        "\n"
        "def other():\n"
        "    return 1\n"
    )
    lines = text_lines(text)
    found_plan = plan(lines)
    assert found_plan is not None
    units = [found_plan.units[at] for at in found_plan.components[0]]
    found = shape(lines, [(u.start, u.end) for u in units], [u.tokens for u in units])
    assert found is not None
    # F_1_1 is named in a comment too: it keeps its text, as does every local.
    assert found.text == (
        "def \0" + "0\0():\n"
        '    v0 = os.environ.get("\0' + '1\0", "0") == "1"\n'
        '    v1 = os.environ.get("F_1_1", "0") == "1"  # v1 of F_1_1\n'
        "    return v0\n"
    )
    assert found.values == ("f000001", "F_1_0")
    assert found.occurrences == ((0, 4, 11, 0), (1, 25, 30, 1))
    assert found.reads == ((1, 10, 1),)
    assert found.lines == (3, 4, 5, 6)


def test_a_component_with_text_beyond_ascii_has_no_shape() -> None:
    lines = text_lines('import os\nA = os.environ.get("A_1")  # café\nB = os.getenv("B_1")\n')
    found_plan = plan(lines)
    assert found_plan is not None
    unit = found_plan.units[found_plan.components[0][0]]
    assert shape(lines, [(unit.start, unit.end)], [unit.tokens]) is None


_NAMES = st.sampled_from(
    ["X_1", "X_22", "X_DISABLE_3", "NO_X_4", "LOCAL_RANK", "X_ENV_6", "A_1", "X_LONG_NAME_7"]
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(sorted(FORMS)), _NAMES), min_size=3, max_size=8))
def test_any_mix_of_families_gives_the_whole_file_result(
    members: list[tuple[str, str]],
) -> None:
    parts = [FORMS[form](at, name) for at, (form, name) in enumerate(members)]
    # Each form twice more, so that every family has a member to move.
    parts += [FORMS[form](len(parts) + at, name) for at, (form, name) in enumerate(members * 2)]
    with pytest.MonkeyPatch.context() as patch:
        _scan(HEAD + "\n\n".join(parts), patch)


_SUFFIXES = st.lists(
    st.sampled_from(["", "_1", "_LONGER_2", "_X", "_DISABLE", "_NO", "_33", "_ENV"]),
    min_size=3,
    max_size=5,
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(gate_sources(), _SUFFIXES), min_size=1, max_size=3))
def test_families_of_generated_gates_give_the_whole_file_result(
    families: list[tuple[str, list[str]]],
) -> None:
    # Every gate the property tests generate (equality, membership, truth, numbers, case
    # methods; at module level, returned, branched on), each copied with its names
    # renamed: a read's name of another length, or that says disable, or holds "ENV".
    parts = ["import os\n"]
    for source, suffixes in families:
        body = source.split("\n", 1)[1]
        for suffix in suffixes:
            at = len(parts)
            text = re.sub(r"\bGATE\b", f"GATE{at}", body)
            text = re.sub(r"\bgate\b", f"gate{at}", text)
            parts.append(text.replace(NAME, f"{NAME}{suffix}_{at}"))
    with pytest.MonkeyPatch.context() as patch:
        _scan("\n\n".join(parts), patch)
