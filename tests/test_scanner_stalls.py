"""Hostile launchers (issue 26): no input stalls a scan.

Each input took a scan tens of seconds at a few hundred kilobytes: a regular
expression that retried the rest of a value at every start, a walk up the tree
for every read, a search of the whole line for every read. Each test asserts
what the scan finds in such an input, sized so that it takes a fraction of a
second now and many seconds before. benchmarks/hostile_launchers.py measures
how the time grows with the size.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner import GateKind, ScanResult, scan
from scanner.launcher.shell import analyse_shell
from scanner.launcher.shell_syntax import parser
from scanner.launcher.shell_tree import deeper_than
from scanner.launcher.yaml_config import analyse_yaml, interpolations
from scanner.settings import Settings
from tests.conftest import write_tree

if TYPE_CHECKING:
    from tree_sitter import Node

# The expression the YAML layer read interpolations with: the reference of what they are.
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-?([^}]*))?\}")


def _scanned(root: Path, files: dict[str, str]) -> ScanResult:
    write_tree(root, files)
    return scan([root], root=root, jobs=1)


def _sites(result: ScanResult) -> list[tuple[str, int, int, str | None]]:
    return [(s.name, s.line, s.column, s.default) for k in result.knobs for s in k.sites]


# Row 5a: 160 KB of unclosed `"${A:` in a YAML value took 40-50 s ----------------------


def test_an_unclosed_interpolation_repeated_in_a_yaml_value_reads_nothing(
    tmp_path: Path,
) -> None:
    result = _scanned(tmp_path, {"conf.yaml": 'key: "' + "${A:" * 20_000 + '"\nnext: ${B:1}\n'})
    assert (_sites(result), result.errors) == ([("B", 2, 7, "1")], ())


def test_reads_not_spelled_as_in_the_value_sit_at_the_scalar_start(tmp_path: Path) -> None:
    # In double quotes, "\t" is a tab in the value: no read is found in the text as it is
    # spelled, and each search for one read the rest of the scalar (800 KB here).
    scalar = "${A:\\t}" * 8_000 + "${A;" * 200_000
    result = _scanned(tmp_path, {"conf.yaml": f'key: "{scalar}"\n'})
    assert set(_sites(result)) == {("A", 1, 6, "\t")}
    assert len(_sites(result)) == 8_000


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="${}:-A_1 \n", max_size=60))
def test_interpolations_are_what_the_expression_finds(value: str) -> None:
    found = [(i.text, i.name, i.default) for i in interpolations(value)]
    assert found == [(m[0], m[1], m[2]) for m in INTERPOLATION.finditer(value)]


# Row 5b: 400 KB of nested `${D:-${D:-...}}` took 37 s ---------------------------------

TOO_DEEP = "The script nests its statements too deeply to analyse; nothing of it is listed."


def test_defaults_nested_past_the_bound_are_an_error_and_the_rest_is_scanned(
    tmp_path: Path,
) -> None:
    nested = "echo " + "${D:-" * 16_000 + "x" + "}" * 16_000 + "\n"
    result = _scanned(tmp_path, {"deep.sh": nested, "ok.sh": "echo ${OK:-1}\n"})
    assert _sites(result) == [("OK", 1, 6, "1")]
    assert [(e.path, e.message) for e in result.errors] == [("deep.sh", TOO_DEEP)]


def test_defaults_nested_within_the_bound_are_each_read(tmp_path: Path) -> None:
    # 100 levels of ${D:-...} are 101 levels of the tree, within MAX_DEPTH (128).
    result = _scanned(tmp_path, {"run.sh": "echo " + "${D:-" * 100 + "x" + "}" * 100 + "\n"})
    assert result.errors == ()
    assert [(s.line, s.column) for s in result.knobs[0].sites] == [(1, c) for c in range(6, 506, 5)]
    assert result.knobs[0].sites[-1].default == "x"


def test_statements_nested_to_the_bound_are_analysed(tmp_path: Path) -> None:
    # 124 nested ifs are 128 levels of the tree: the walker recurses at each, within
    # Python's limit; one more is too deep.
    files = {
        f"if{depth}.sh": "if [[ $X == 1 ]]; then\n" * depth + "echo $Y\n" + "fi\n" * depth
        for depth in (124, 125)
    }
    result = _scanned(tmp_path, files)
    assert [(k.name, len(k.sites)) for k in result.knobs] == [("X", 124), ("Y", 1)]
    assert [(e.path, e.message) for e in result.errors] == [("if125.sh", TOO_DEEP)]


# Row 5c: 160 KB of nested `[[ ( ( ... ) ) ]]` took 45 s -------------------------------


def test_a_test_nested_past_the_bound_is_an_error_and_the_rest_is_scanned(
    tmp_path: Path,
) -> None:
    nested = "[[ " + "( " * 20_000 + "$C == 1" + " )" * 20_000 + " ]] && echo y\n"
    result = _scanned(tmp_path, {"deep.sh": nested, "ok.sh": "echo ${OK:-1}\n"})
    assert _sites(result) == [("OK", 1, 6, "1")]
    assert [(e.path, e.message) for e in result.errors] == [("deep.sh", TOO_DEEP)]


def test_a_long_chain_of_presence_tests_is_an_error(tmp_path: Path) -> None:
    # Each read walked up the chain and over it again: 600 tests took 15 s.
    chain = "[[ " + " && ".join(["-n $V"] * 600) + " ]] && echo y\n"
    result = _scanned(tmp_path, {"run.sh": chain})
    assert (_sites(result), [e.message for e in result.errors]) == ([], [TOO_DEEP])


# Row 5d: one line with 200k `$V` reads took 74 s ---------------------------------------


def test_reads_on_one_long_line_are_each_at_their_column(tmp_path: Path) -> None:
    # Each column was counted from the start of the line: with 800 bytes of text between
    # reads, 3,000 reads took seconds.
    padding = '"' + "é" * 400 + '"'
    result = _scanned(tmp_path, {"run.sh": "echo" + f" $V {padding}" * 3_000 + "\n"})
    columns = [s.column for s in result.knobs[0].sites]
    assert columns == [6 + at * (len(padding) + 4) for at in range(3_000)]


# Beyond the rows: shapes that grew with the square of their length ---------------------


def test_a_long_elif_chain_keeps_32_conditions_per_write(tmp_path: Path) -> None:
    # Each branch was put under the negation of every branch before it, one by one.
    branches = "".join(f"elif [[ $V == {i} ]]; then export X={i}\n" for i in range(1, 2_000))
    result = _scanned(tmp_path, {"run.sh": f"if [[ $V == 0 ]]; then export X=0\n{branches}fi\n"})
    writes = [(w.line, w.value, w.when) for w in result.writes]
    assert writes == [(1, "0", (("V", "0"),)), *((i + 1, str(i), ()) for i in range(1, 2_000))]
    negations = " && ".join(f"! [[ $V == {i} ]]" for i in range(32))
    assert result.writes[-1].condition == f"{negations} && ... (1968 more)"


def test_writes_after_many_guards_keep_32_and_no_implication(tmp_path: Path) -> None:
    # Every write joined the text of every guard before it.
    script = "[[ $G == 1 ]] || exit 1\n" * 3_000 + "export X=1\n" * 3_000
    result = _scanned(tmp_path, {"run.sh": script})
    assert {(w.condition, w.when) for w in result.writes} == {
        (" && ".join(["[[ $G == 1 ]]"] * 32) + " && ... (2968 more)", ())
    }
    assert len(result.writes) == 3_000


def test_a_case_of_many_values_is_a_value_and_of_many_wildcards_unknown(
    tmp_path: Path,
) -> None:
    # Each value probed was matched against every pattern: 6,500 items took 41 s.
    values = "".join(f"  v{i}) export X{i}=1 ;;\n" for i in range(3_000))
    wildcards = "".join(f"  w{i}*) export Y{i}=1 ;;\n" for i in range(65))
    result = _scanned(
        tmp_path,
        {
            "values.sh": f"case $V in\n{values}esac\n",
            "wildcards.sh": f"case $W in\n{values}{wildcards}esac\n",
        },
    )
    gates = {k.name: k.sites[0].gate for k in result.knobs}
    assert (gates["V"].kind, gates["V"].choices) == (
        GateKind.VALUE,
        tuple(f"v{i}" for i in range(3_000)),
    )
    assert (gates["W"].kind, gates["W"].reason) == (
        GateKind.UNKNOWN,
        "its case has more than 64 patterns with wildcards",
    )


def test_defaults_assigned_again_and_again_are_each_judged_by_what_follows(
    tmp_path: Path,
) -> None:
    # Each X=${X:-1} looked at every site of the script for what follows it.
    script = "X=${X:-1}\n" * 8_000 + '[[ "$X" == "1" ]] && echo on\n'
    script += "Y=${Y:-0}\n" * 2 + 'run --flag "$Y"\n'
    result = _scanned(tmp_path, {"run.sh": script})
    verdicts = {
        (s.name, s.gate.kind, s.gate.default_on, s.gate.off_value, s.target)
        for k in result.knobs
        for s in k.sites
    }
    assert verdicts == {
        ("X", GateKind.BOOLEAN, True, "0", None),
        ("Y", GateKind.UNKNOWN, None, None, "--flag"),
    }
    assert [len(k.sites) for k in result.knobs] == [8_001, 3]


def test_a_file_sourced_again_and_again_is_followed_up_to_256_kib(tmp_path: Path) -> None:
    # Each source walked the file again: a 4 KB script sourcing 60 KB 60 times took seconds.
    defaults = "".join(f"export A{i}=${{A{i}:-{i}}}\n" for i in range(2_500))
    here = 'HERE="$(dirname "${BASH_SOURCE[0]}")"\n'
    script = here + 'source "$HERE/env.sh"\n' * 60 + "echo $A7\n"
    result = _scanned(tmp_path, {"env.sh": defaults, "run.sh": script})
    assert [s for s in _sites(result) if s[0] == "A7"] == [
        ("A7", 8, 11, "7"),  # env.sh's own
        ("A7", 62, 6, "7"),  # run.sh's, with env.sh's default
    ]
    assert [(e.path, e.message) for e in result.errors] == [
        (
            "run.sh",
            "The files the script sources come to more than 262,144 bytes (a file counts "
            "each time); those past that are not followed, so reads after them may be "
            "misjudged.",
        )
    ]


def test_a_regular_expression_that_backtracks_is_not_tried(tmp_path: Path) -> None:
    # The script's own expression was tried on its own text (a value the test names):
    # (a+)+ took 15 s to give up on 28 a's.
    script = "[[ $X =~ (a+)+[b]" + "a" * 28 + "(c) ]] && echo x\n"
    script += '[[ "${Y:-0}" =~ ^(1|on)$ ]] && echo y\n'
    result = _scanned(tmp_path, {"run.sh": script})
    gates = {k.name: k.sites[0].gate for k in result.knobs}
    assert (gates["X"].kind, gates["X"].reason) == (
        GateKind.UNKNOWN,
        "it is matched against a regular expression with a repeated group or more than 3 "
        "repetitions, which is not tried",
    )
    assert (gates["Y"].kind, gates["Y"].default_on, gates["Y"].off_value) == (
        GateKind.BOOLEAN,
        False,
        "0",
    )


# Any nesting, repetition and unclosed construct -----------------------------------------

EXAMPLES = int(os.environ.get("KNOBS_PROPERTY_EXAMPLES", "100"))
NAMES = ("KNOB_A", "KNOB_B", "X")
# What opens a level of nesting, and what closes it (N: a variable's name).
LEVELS = (
    ("${N:-", "}"),
    ('"${N:-', '}"'),
    ('"$(echo ', ')"'),
    ("( ", " )"),
    ("{ ", "; }"),
    ("if [[ $N == 1 ]]; then ", "; fi"),
    ("if [[ $N ]]; then :; elif [[ $N == 0 ]]; then ", "; fi"),
    ("while [[ -n $N ]]; do ", "; done"),
    ("case $N in x) ", " ;; esac"),
    ("f() { ", "; }"),
    ("$(( $N + ", " ))"),
    ("[[ -n $N && ", " ]]"),
    ("[[ $N == 1 ]] || ", ""),
    ("! ", ""),
)
CORES = ("echo $N", "export N=1", "[[ $N == 1 ]]", "${N:?}", "N=${N:-0}", ": $(( N + 1 ))")


@st.composite
def hostile_scripts(draw: st.DrawFn) -> str:
    """A line nested up to 400 levels deep (all of one kind, or of any), closed or not,
    repeated up to 5 times."""
    depth = draw(st.integers(0, 400) | st.integers(250, 400))
    kinds = st.sampled_from(draw(st.sampled_from([(level,) for level in LEVELS] + [LEVELS])))
    level = st.tuples(kinds, st.sampled_from(NAMES))
    levels = draw(st.lists(level, min_size=depth, max_size=depth))
    core = draw(st.sampled_from(CORES)).replace("N", draw(st.sampled_from(NAMES)))
    closers = [close.replace("N", name) for (_, close), name in reversed(levels)]
    closed = draw(st.just(len(closers)) | st.integers(0, len(closers)))
    line = "".join(o.replace("N", n) for (o, _), n in levels) + core + "".join(closers[:closed])
    return "\n".join([line] * draw(st.integers(1, 5))) + "\n"


@settings(max_examples=EXAMPLES, deadline=None)
@given(hostile_scripts())
def test_any_nesting_of_a_script_is_scanned_and_reads_only_its_names(script: str) -> None:
    done = analyse_shell("run.sh", script.encode(), Settings())
    names = {s.name for s in done.result.sites} | {w.name for w in done.result.writes if w.name}
    assert all(name in script for name in names)
    assert (
        done.error is None
        or done.error.message in (TOO_DEEP,)
        or (done.error.message.startswith("The bash grammar cannot parse the script near line"))
    )


def _depth(root: Node) -> int:
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.children)
    return deepest


@settings(max_examples=EXAMPLES, deadline=None)
@given(hostile_scripts(), st.integers(0, 400))
def test_the_depth_bound_is_the_depth_of_the_tree(script: str, limit: int) -> None:
    root = parser().parse(script.encode()).root_node
    assert deeper_than(root, limit) == (_depth(root) > limit)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    st.lists(st.sampled_from(("${KNOB_A:", "${X}", "${KNOB_B:-1}", "}", "$", "{", ":", " ")))
    .map("".join)
    .flatmap(lambda value: st.sampled_from((value, f'"{value}"', f"[{value}]")))
    .flatmap(lambda value: st.integers(1, 200).map(lambda n: f"key: {value * n}\n"))
)
def test_any_interpolation_of_a_yaml_value_is_read_or_not_and_only_its_names(text: str) -> None:
    done = analyse_yaml("conf.yaml", text, Settings())
    assert all(site.name in text for site in done.result.sites)
