"""Every shell form the scanner reads and writes: one case each, pinned to line and column.

A case is data: the script, with ``▸`` marking where each expected read or write
starts (the marker is removed before the script is written), and what is
expected there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from scanner import GateKind, ReadKind, ScanResult, Settings, WriteKind, scan
from tests.conftest import write_tree

MARK = "▸"


@dataclass(frozen=True)
class Read:
    name: str
    default: str | None = None
    gate: GateKind = GateKind.VALUE
    default_on: bool | None = None
    off_value: str | None = None
    kind: ReadKind = ReadKind.EXPANSION
    choices: tuple[str, ...] = ()
    computed: str | None = None  # a default computed at run time, as written


@dataclass(frozen=True)
class Wrote:
    name: str | None
    kind: WriteKind
    value: str | None
    when: tuple[tuple[str, str], ...] = ()
    computed: str | None = None  # a value computed at run time, as written


def marked(script: str) -> tuple[str, list[tuple[int, int]]]:
    """The script without its markers, and the 1-based (line, column) of each marker."""
    positions = []
    lines = []
    for number, line in enumerate(script.strip("\n").split("\n"), start=1):
        while MARK in line:
            column = line.index(MARK)
            positions.append((number, column + 1))
            line = line[:column] + line[column + 1 :]
        lines.append(line)
    return "\n".join(lines) + "\n", positions


def scanned(
    tmp_path: Path, script: str, name: str = "run.sh"
) -> tuple[ScanResult, list[tuple[int, int]]]:
    text, positions = marked(script)
    write_tree(tmp_path, {name: text})
    return scan([tmp_path], root=tmp_path, jobs=1), positions


def switch(name: str, default: str | None, default_on: bool) -> Read:
    """A boolean read that "0" turns off."""
    return Read(name, default, GateKind.BOOLEAN, default_on, "0")


READS = [
    ("bare", "echo ▸$X", Read("X")),
    ("braced", "echo ▸${X}", Read("X")),
    ("default", "echo ▸${X:-d}", Read("X", "d")),
    ("default-unset-only", "echo ▸${X-d}", Read("X", "d")),
    ("assign-default", ': "▸${X:=7}"', Read("X", "7")),
    ("required", "echo ▸${X:?set X}", Read("X", kind=ReadKind.REQUIRED)),
    ("quoted-default", 'echo "▸${X:-"a b"}"', Read("X", "a b")),
    (
        "off-by-default",
        '[[ "▸${X:-0}" == "1" ]] && echo on',
        switch("X", "0", False),
    ),
    ("on-by-default", '[ "▸${X:-1}" != "0" ] && echo on', switch("X", "1", True)),
    ("test-command", 'test "▸$X" = 1 && echo on', switch("X", None, False)),
    (
        "numeric-switch",
        'if [ "▸${X:-0}" -eq 1 ]; then echo; fi',
        switch("X", "0", False),
    ),
    ("numeric-threshold", 'if [ "▸${X:-0}" -gt 4 ]; then echo; fi', Read("X", "0")),
    (
        "negated",
        'if ! [[ "▸${X:-1}" == "0" ]]; then echo; fi',
        switch("X", "1", True),
    ),
    (
        "glob",  # "true" matches and "false" does not: the off word of its pair
        '[[ "▸${X:-}" == t* ]] && echo',
        Read("X", "", GateKind.BOOLEAN, False, "false"),
    ),
    (
        "true-against-its-off-word",
        '[ "▸${X:-true}" == true ] && echo',
        Read("X", "true", GateKind.BOOLEAN, True, "false"),
    ),
    (
        "presence",
        '[[ -n "▸$X" ]] && run_fused',
        Read("X", gate=GateKind.PRESENCE, default_on=False, off_value=""),
    ),
    (
        "is-set",
        "[[ -v ▸X ]] && run_fused",
        Read("X", gate=GateKind.PRESENCE, default_on=False, off_value=None),
    ),
    (
        "case-choices",
        'case "▸${X:-triton}" in\n  triton) a ;;\n  torch|eager) b ;;\nesac',
        Read("X", "triton", choices=("triton", "torch", "eager")),
    ),
    (
        "case-switch",
        'case "▸${X:-0}" in\n  1|true) fused ;;\n  *) eager ;;\nesac',
        switch("X", "0", False),
    ),
    # bash's own pattern rules (scanner/launcher/bash_patterns.py), each checked against
    # bash 5.2: a bracket's leading ^ negates as ! does; a POSIX class is a class; a quoted
    # or backslashed wildcard is matched as written; $ ends the text
    (
        "glob-with-a-negated-bracket",  # any value not starting with f is on: not unset
        '[[ "▸${X:-}" == [^f]* ]] && echo fused',
        Read("X", "", GateKind.BOOLEAN, False, "false"),
    ),
    (
        "regex-with-a-posix-class",
        '[[ "▸${X:-0}" =~ ^[[:space:]]*(1|on)$ ]] && echo fused',
        Read("X", "0", GateKind.BOOLEAN, False, "0"),
    ),
    (
        "case-with-a-quoted-star",  # "*" is the text *, a choice, not a catch-all
        'case "▸${X:-triton}" in\n  "*") a ;;\n  triton) b ;;\n  torch) c ;;\nesac',
        Read("X", "triton", choices=("*", "triton", "torch")),
    ),
    ("arithmetic", "n=$((▸GPUS - 1))", Read("GPUS")),
    ("array-index", 'BUS=(a b)\necho "${BUS[▸$RANK_HERE]}"', Read("RANK_HERE")),
    ("ordering-is-a-count", 'if [[ "▸${N:-0}" -gt 0 ]]; then run; fi', Read("N", "0")),
    (
        "presence-then-use-is-a-value",
        '[[ -n "▸${CKPT:-}" ]] && load "▸$CKPT"',
        (Read("CKPT", ""), Read("CKPT")),
    ),
    (
        "presence-then-default-is-a-value",
        'if [[ -z "▸${OUT:-}" ]]; then\n  export OUT=/tmp/out\nfi',
        Read("OUT", ""),
    ),
    (
        "presence-that-only-warns-is-a-value",
        '[[ -z "▸${HF_TOKEN:-}" ]] && echo "no token"',
        Read("HF_TOKEN", ""),
    ),
    (
        "presence-that-stops-is-a-value",
        'if [[ -z "▸${DATA:-}" ]]; then\n  echo "set DATA" >&2\n  exit 1\nfi',
        Read("DATA", ""),
    ),
    (
        "internal-guard",
        '[[ -n "▸${__LIB_SOURCED:-}" ]] && return 0',
        Read("__LIB_SOURCED", ""),
    ),
    (
        "presence-tested-again-is-unknown",
        '[[ -n "▸${X:-}" && "▸${X}" != "0" ]] && run_fused',
        (Read("X", "", GateKind.UNKNOWN), switch("X", None, True)),
    ),
    (
        "exported-default-a-switch-by-name",
        "export NVTE_USE_FUSED_X=▸${NVTE_USE_FUSED_X:-1}",
        switch("NVTE_USE_FUSED_X", "1", True),
    ),
    (
        "exported-default-unknown",
        "export NCCL_CROSS_NIC=▸${NCCL_CROSS_NIC:-0}",
        Read("NCCL_CROSS_NIC", "0", GateKind.UNKNOWN),
    ),
    (
        "exported-default-a-size-by-name",
        "export LOCAL_BATCH_SIZE=▸${LOCAL_BATCH_SIZE:-1}",
        Read("LOCAL_BATCH_SIZE", "1"),
    ),
    (
        "exported-default-built-is-unknown",
        'if [ "▸$OPT" = 1 ]; then _F=1; else _F=0; fi\nexport X=▸${X:-$_F}',
        (switch("OPT", None, False), Read("X", None, GateKind.UNKNOWN, computed="$_F")),
    ),
    (
        "a-flag-with-a-true-false-default-is-a-switch",
        'X=▸${X:-False}\ntrain --shiny "▸$X"',
        (
            Read("X", "False", GateKind.BOOLEAN, False, "False"),
            Read("X", "False", GateKind.BOOLEAN, False, "False"),
        ),
    ),
    (
        "a-zero-one-flag-of-an-unknown-type-is-unknown",
        'train --shiny "▸${X:-1}"',
        Read("X", "1", GateKind.UNKNOWN),
    ),
    (
        "set-in-a-branch-is-still-read-after-it",
        'if [[ "▸$A" == "1" ]]; then MODE=x; fi\necho "▸$MODE"',
        (switch("A", None, False), Read("MODE")),
    ),
    ("a-system-fact", 'echo "▸$HOME"', Read("HOME", gate=GateKind.LAUNCH)),
    (
        "self-default-then-test",
        'export X=▸${X:-1}\nif [[ "▸$X" == "1" ]]; then echo; fi',
        (switch("X", "1", True), switch("X", "1", True)),  # the default takes the test's verdict
    ),
    ("in-function", "f() {\n  echo ▸${X:-2}\n}", Read("X", "2")),
    ("command-name", "▸${LAUNCHER} python train.py", Read("LAUNCHER")),
    ("command-name-bare", "▸$CMD --flag", Read("CMD")),
    ("in-command-substitution", "v=$(echo ▸$X)", Read("X")),
    ("in-heredoc", "cat <<EOF\n▸$X\nEOF", Read("X")),
    ("launch-fact", "echo ▸${NODE_RANK:-0}", Read("NODE_RANK", "0", gate=GateKind.LAUNCH)),
    ("default-with-dashes", "echo ▸${ZONE:-us-central1}", Read("ZONE", "us-central1")),
    ("default-a-float", "echo ▸${EPS:-1e-8}", Read("EPS", "1e-8")),
    ("default-with-equals", "echo ▸${OPTS:-a=b}", Read("OPTS", "a=b")),
    ("default-with-plus", "echo ▸${CXX:-g++}", Read("CXX", "g++")),
    ("default-with-percent", "echo ▸${FRAC:-50%}", Read("FRAC", "50%")),
    ("default-with-at", "echo ▸${WHO:-me@host}", Read("WHO", "me@host")),
    ("default-double-quoted", 'echo ▸${MSG:-"a b"}', Read("MSG", "a b")),
    # a backslash or a single quote means one thing inside "${X:-...}", another outside
    ("default-escaped-blank", r"echo ▸${SEP:-a\ b}", Read("SEP", "a b")),
    ("default-single-quoted", "echo ▸${P:-'$q'}", Read("P", "$q")),
    ("default-in-quotes-keeps-a-backslash", 'echo "▸${SEP:-a\\b}"', Read("SEP", "a\\b")),
    ("default-in-quotes-escapes-a-dollar", 'echo "▸${P:-\\$x}"', Read("P", "$x")),
    ("default-in-quotes-keeps-single-quotes", "echo \"▸${P:-'q'}\"", Read("P", "'q'")),
    ("self-default-in-quotes", "P=\"▸${P:-'q'}\"", Read("P", "'q'")),
    ("self-default-unquoted", "P=▸${P:-'q'}", Read("P", "q")),
    (
        "default-an-expansion-is-computed",
        "echo ▸${OUT:-▸${BASE}/out}",
        (Read("OUT", computed="${BASE}/out"), Read("BASE")),
    ),
    (
        "default-a-command-is-computed",
        "echo ▸${ROOT:-$(realpath .)}",
        Read("ROOT", computed="$(realpath .)"),
    ),
    ("default-a-tilde-is-computed", "echo ▸${CACHE:-~/c}", Read("CACHE", computed="~/c")),
    (
        "computed-default-then-read",
        "R=▸${R:-$(nproc)}\necho ▸$R",
        (Read("R", None, GateKind.UNKNOWN, computed="$(nproc)"), Read("R", computed="$(nproc)")),
    ),
    (
        "disable-polarity",
        '[[ "▸${X_DISABLE_FUSION:-0}" == "1" ]] && echo',
        switch("X_DISABLE_FUSION", "0", False),
    ),
]


@pytest.mark.parametrize(("script", "expected"), [c[1:] for c in READS], ids=[c[0] for c in READS])
def test_shell_read(tmp_path: Path, script: str, expected: Read | tuple[Read, ...]) -> None:
    result, positions = scanned(tmp_path, script)
    wanted = expected if isinstance(expected, tuple) else (expected,)
    sites = [s for k in result.knobs for s in k.sites]
    sites.sort(key=lambda s: (s.line, s.column))
    got = [
        (
            (s.line, s.column),
            Read(
                s.name,
                s.default,
                s.gate.kind,
                s.default_on,
                s.gate.off_value,
                s.kind,
                s.gate.choices,
                s.default_computed,
            ),
        )
        for s in sites
    ]
    assert got == list(zip(positions, wanted, strict=True))
    assert all(s.language == "shell" and s.path == "run.sh" for s in sites)


def test_disable_words_set_the_polarity(tmp_path: Path) -> None:
    result, _ = scanned(tmp_path, '[[ "${X_DISABLE_FUSION:-0}" == "1" ]] && echo')
    assert [k.polarity.value for k in result.knobs] == ["disable"]


NOT_READS = [
    ("comment", "# echo $X\necho done"),
    ("single-quoted", "echo '$X ${Y:-1}'"),
    ("local", "f() {\n  local x=1\n  echo $x\n}"),
    ("assigned-first", "X=$(pwd)\necho $X"),
    ("loop-variable", "for v in a b; do echo $v; done"),
    ("read-target", "while IFS= read -r line; do echo $line; done < f"),
    ("c-style-loop", "for ((i=0; i<3; i++)); do echo $i; done"),
    ("positional-and-special", 'echo $1 "$@" $? $# $$ ${#@}'),
    ("shell-maintained", "echo $PWD $RANDOM ${BASH_SOURCE[0]} $LINENO"),
    ("quoted-heredoc", "cat <<'EOF'\n$X\nEOF"),
    ("getopts-target", 'while getopts "ab:" opt; do\n  echo "$opt" "$OPTARG"\ndone'),
    ("getopts-target-word", "while getopts ab: flag; do echo $flag; done"),
    ("set-before-the-call", "f() { echo $MP; }\nMP=/x\nf"),
]


@pytest.mark.parametrize("script", [c[1] for c in NOT_READS], ids=[c[0] for c in NOT_READS])
def test_not_a_read(tmp_path: Path, script: str) -> None:
    result, _ = scanned(tmp_path, script)
    assert [k.name for k in result.knobs] == []
    assert result.errors == ()


WRITES = [
    ("export", "export ▸X=1", Wrote("X", WriteKind.EXPORT, "1")),
    ("export-quoted", "export ▸X='a b'", Wrote("X", WriteKind.EXPORT, "a b")),
    ("export-later", "X=1\nexport ▸X", Wrote("X", WriteKind.EXPORT, "1")),
    ("declare-x", "declare -x ▸X=2", Wrote("X", WriteKind.EXPORT, "2")),
    ("prefix", "▸X=1 python train.py", Wrote("X", WriteKind.PREFIX, "1")),
    ("unset", "unset ▸X", Wrote("X", WriteKind.UNSET, None)),
    (
        "printed",
        'if true; then\n  ▸echo "env.NCCL_ALGO=Ring"\nfi',
        Wrote("NCCL_ALGO", WriteKind.PRINTED, "Ring"),
    ),
    (
        "implied-by-if",
        'if [[ "${D:-0}" == "1" ]]; then\n  export ▸Y=0\nfi',
        Wrote("Y", WriteKind.EXPORT, "0", (("D", "1"),)),
    ),
    (
        "implied-by-else",
        'if [[ "${D:-0}" != "1" ]]; then\n  :\nelse\n  export ▸Y=0\nfi',
        Wrote("Y", WriteKind.EXPORT, "0", (("D", "1"),)),
    ),
    (
        "implied-by-exit-guard",
        'if [[ "${D:-0}" != "1" ]]; then\n  exit 0\nfi\n▸echo "env.Y=0"',
        Wrote("Y", WriteKind.PRINTED, "0", (("D", "1"),)),
    ),
    (
        "implied-by-or-exit",
        '[[ "${D:-0}" == "1" ]] || exit 0\nexport ▸Y=0',
        Wrote("Y", WriteKind.EXPORT, "0", (("D", "1"),)),
    ),
    (
        "implied-by-and",
        '[ "$D" = "yes" ] && export ▸Y=0',
        Wrote("Y", WriteKind.EXPORT, "0", (("D", "yes"),)),
    ),
    (
        "implied-by-case",
        'case "$MODE" in\n  det) export ▸Y=0 ;;\nesac',
        Wrote("Y", WriteKind.EXPORT, "0", (("MODE", "det"),)),
    ),
    (
        "printer-function",
        'emit() {\n  local k="$1"\n  local v="${2:-}"\n  echo "env.${k}=${v}"\n}\n▸emit X 0',
        Wrote("X", WriteKind.PRINTED, "0"),
    ),
    (
        "positional-printer",
        'emit() { echo "env.$1=$2"; }\n▸emit X 1',
        Wrote("X", WriteKind.PRINTED, "1"),
    ),
    ("printed-name-unknown", '▸echo "env.$(pick)=1"', Wrote(None, WriteKind.PRINTED, "1")),
    (
        "not-implied-by-a-local",
        'MODE=det\nif [[ "$MODE" == "det" ]]; then\n  export ▸Y=0\nfi',
        Wrote("Y", WriteKind.EXPORT, "0", ()),
    ),
    (
        "not-implied-by-a-file-test",
        'if [[ "${D:-0}" == "1" && -f x ]]; then\n  export ▸Y=0\nfi',
        Wrote("Y", WriteKind.EXPORT, "0", ()),
    ),
]


@pytest.mark.parametrize(
    ("script", "expected"), [c[1:] for c in WRITES], ids=[c[0] for c in WRITES]
)
def test_shell_write(tmp_path: Path, script: str, expected: Wrote) -> None:
    result, positions = scanned(tmp_path, script)
    writes = [w for w in result.writes if w.name not in ("D", "MODE")]
    got = [((w.line, w.column), Wrote(w.name, w.kind, w.value, w.when)) for w in writes]
    assert got == [(positions[0], expected)]
    assert all(w.language == "shell" for w in writes)


PREFIX = WriteKind.PREFIX
COMMAND_WRITES = [
    ("prefix-in-if-test", "if ▸X=1 cmd; then echo; fi", (Wrote("X", PREFIX, "1"),)),
    ("prefix-in-elif-test", "if a; then :; elif ▸X=1 cmd; then :; fi", (Wrote("X", PREFIX, "1"),)),
    ("prefix-in-command-substitution", "v=$(▸Y=2 cmd)", (Wrote("Y", PREFIX, "2"),)),
    ("prefix-computed", "▸N=$(nproc) run", (Wrote("N", PREFIX, None, computed="$(nproc)"),)),
    (
        "env-command",
        'env -u ▸A ▸X=1 ▸Y=$(a) ▸Z="a b" python t.py W=9',
        (
            Wrote("A", WriteKind.UNSET, None),
            Wrote("X", PREFIX, "1"),
            Wrote("Y", PREFIX, None, computed="$(a)"),
            Wrote("Z", PREFIX, "a b"),
        ),
    ),
    (
        "docker-run-env",
        "docker run --rm --name n1 -e ▸X=1 --env ▸Y=2 -e ▸Z ▸--env=W=3 img cmd -e NO=1",
        (
            Wrote("X", PREFIX, "1"),
            Wrote("Y", PREFIX, "2"),
            Wrote("Z", PREFIX, None, computed="$Z"),
            Wrote("W", PREFIX, "3"),
        ),
    ),
    ("podman-run-env", "podman run -it ▸-eQ=4 img", (Wrote("Q", PREFIX, "4"),)),
    (
        "srun-export-list",
        "srun ▸▸--export=A=1,B,ALL python t.py --export=NO=1",
        (Wrote("A", PREFIX, "1"), Wrote("B", PREFIX, None, computed="$B")),
    ),
    (
        "srun-export-after-options",
        "srun -N 2 --exclusive -l ▸--export=ALL,A=1 python t.py",
        (Wrote("A", PREFIX, "1"),),
    ),
    (
        "sbatch-export-separate",
        "sbatch --export ▸▸ALL,C=3,D=x job.sh",
        (Wrote("C", PREFIX, "3"), Wrote("D", PREFIX, "x")),
    ),
    (
        "ray-job-runtime-env-json",
        "ray job submit --address=http://h:8265 ▸▸--runtime-env-json='{\n"
        '  "env_vars": {"NCCL_ALGO": "Ring", "N": 2, "1X": "no"}}\' -- python t.py',
        (
            Wrote("NCCL_ALGO", PREFIX, "Ring"),
            Wrote("N", PREFIX, None, computed="2"),
        ),
    ),
    (
        "ray-job-runtime-env-json-separate",
        'ray job submit --runtime-env-json ▸\'{"env_vars": {"A": "1"}}\' -- python t.py',
        (Wrote("A", PREFIX, "1"),),
    ),
    ("ray-job-runtime-env-json-computed", 'ray job submit --runtime-env-json "$ENV" -- t', ()),
    (
        "export-dynamic-name",
        'for K in a b; do\n  export ▸"$K"="$V"\ndone',
        (Wrote(None, WriteKind.EXPORT, None, computed='"$V"'),),
    ),
    (
        "export-dynamic-name-constant-value",
        "export ▸${P}_X=1",
        (Wrote(None, WriteKind.EXPORT, "1"),),
    ),
]


@pytest.mark.parametrize(
    ("script", "expected"),
    [c[1:] for c in COMMAND_WRITES],
    ids=[c[0] for c in COMMAND_WRITES],
)
def test_command_line_write(tmp_path: Path, script: str, expected: tuple[Wrote, ...]) -> None:
    result, positions = scanned(tmp_path, script)
    got = [
        ((w.line, w.column), Wrote(w.name, w.kind, w.value, w.when, w.computed))
        for w in result.writes
    ]
    assert got == list(zip(positions, expected, strict=True))
    assert result.errors == ()


def test_a_function_is_read_at_its_first_call(tmp_path: Path) -> None:
    script = (
        'setup() {\n  echo "$MODEL_PATH" "$REAL"\n}\nMODEL_PATH=/models\nsetup\nsetup\n'
        'later() { echo "$LATE"; }\n'
    )
    result, _ = scanned(tmp_path, script)
    got = [(s.name, s.line, s.column, s.function) for k in result.knobs for s in k.sites]
    # MODEL_PATH is the script's own by the call; a function never called is read at the end
    assert got == [("LATE", 7, 17, "later"), ("REAL", 2, 23, "setup")]


def test_a_printer_function_defined_after_a_helper_is_still_a_printer(tmp_path: Path) -> None:
    result, _ = scanned(tmp_path, 'emit() { echo "env.$1=$2"; }\nrun() { emit X 1; }\nrun\n')
    assert [(w.name, w.value, w.line, w.function) for w in result.writes] == [("X", "1", 2, "run")]


TEMPLATES = [
    ("placeholder-value", "export MODEL=<model_name>\necho $HF_HOME\n", "<model_name>", 1),
    ("placeholder-words", "echo ok\nDATA=<path to data> run $X\n", "<path to data>", 2),
    ("placeholder-in-braces", "echo ${DATA_<SPLIT>} $Y\n", "<SPLIT>", 1),
]


@pytest.mark.parametrize(
    ("script", "placeholder", "line"),
    [c[1:] for c in TEMPLATES],
    ids=[c[0] for c in TEMPLATES],
)
def test_a_template_lists_nothing(tmp_path: Path, script: str, placeholder: str, line: int) -> None:
    write_tree(tmp_path, {"run.sh": script})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert (result.knobs, result.writes, result.dynamic) == ((), (), ())
    assert [(e.path, e.message, e.template) for e in result.errors] == [
        (
            "run.sh",
            f"The script does not parse: {placeholder} near line {line} is a placeholder to "
            "fill in, not bash (a template); nothing of it is listed. Fill it in, or exclude "
            "the file.",
            f"{placeholder} near line {line}",
        )
    ]


def test_a_condition_that_is_not_an_equality_is_kept_as_text(tmp_path: Path) -> None:
    result, _ = scanned(tmp_path, 'if [[ "${D:-0}" == "1" && -f x ]]; then\n  export Y=0\nfi')
    (write,) = result.writes
    assert (write.when, write.condition) == ((), '[[ "${D:-0}" == "1" && -f x ]]')


@pytest.mark.parametrize(
    ("guard", "condition"),
    [
        # hao-ai-lab/FastVideo 2f3d4074 apps/dreamverse/scripts/launch/launch_backend_dreamverse.sh:
        # a missing file exits, so what follows runs where the file is there
        ('if ! [[ -f "$CONFIG" ]]; then exit 1; fi', '[[ -f "$CONFIG" ]]'),
        ('if [[ ! -f "$CONFIG" ]]; then exit 1; fi', '! [[ ! -f "$CONFIG" ]]'),
        ('[[ -f "$CONFIG" ]] || exit 1', '[[ -f "$CONFIG" ]]'),
        ('! [[ -f "$CONFIG" ]] && exit 1', '[[ -f "$CONFIG" ]]'),
        ("if [[ -f a ]] && [[ -f b ]]; then exit 1; fi", "! { [[ -f a ]] && [[ -f b ]]; }"),
        ("if [[ -f a || -f b ]]; then exit 1; fi", "! { [[ -f a || -f b ]]; }"),
    ],
)
def test_the_condition_after_a_guard_is_shown_as_bash_reads_it(
    tmp_path: Path, guard: str, condition: str
) -> None:
    write_tree(tmp_path, {"run.sh": f"{guard}\nexport Y=1\n"})
    write = scan([tmp_path], root=tmp_path, jobs=1).writes[-1]
    assert (write.name, write.condition) == ("Y", condition)


def test_an_indirect_expansion_is_a_dynamic_read(tmp_path: Path) -> None:
    result, _ = scanned(tmp_path, 'name=FOO\necho "${!name}"')
    assert [(d.line, d.column, d.expression, d.reason) for d in result.dynamic] == [
        (2, 7, "${!name}", "an indirect expansion: the name is the value of name")
    ]


def test_a_sourced_file_beside_the_script_gives_its_defaults_and_locals(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "env/base.sh": "export TURBO=${TURBO:-1}\nROOT=/opt/x\n",
            "run.sh": (
                'HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                'source "$HERE/env/base.sh"\n'
                'if [[ "$TURBO" == "1" ]]; then echo "$ROOT"; fi\n'
            ),
        },
    )
    result = scan([tmp_path / "run.sh"], root=tmp_path, jobs=1)
    (knob,) = result.knobs
    (site,) = knob.sites
    assert (knob.name, site.line, site.default, site.default_on) == ("TURBO", 3, "1", True)


def test_a_shebang_names_a_shell_script_without_an_extension(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "bin/launch": "#!/usr/bin/env bash\necho ${X_LAUNCH:-1}\n",
            "bin/tool": "#!/usr/bin/python3\nprint(1)\n",
            "bin/notes": "echo ${X_NOTES}\n",
        },
    )
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [(k.name, k.sites[0].path) for k in result.knobs] == [("X_LAUNCH", "bin/launch")]
    assert result.files_scanned == 1


def test_a_malformed_script_is_an_error_for_that_file_only(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "bad.sh": 'if [[ "$X" == 1 ]]; then\n  echo (\n',
            "good.sh": "echo ${GOOD:-1}\n",
            "mod.py": 'import os\nos.environ.get("PY_KNOB")\n',
        },
    )
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [(e.path, e.message.split(";")[0]) for e in result.errors] == [
        ("bad.sh", "The bash grammar cannot parse the script near line 2, column 8")
    ]
    assert {"GOOD", "PY_KNOB"} <= {k.name for k in result.knobs}


def test_printed_write_patterns_come_from_the_settings(tmp_path: Path) -> None:
    write_tree(tmp_path, {"hook.sh": 'echo "set:A=1"\necho "env.B=2"\n'})
    result = scan(
        [tmp_path],
        Settings(printed_writes=(r"set:(?P<name>\w+)=(?P<value>.*)",)),
        root=tmp_path,
        jobs=1,
    )
    assert [(w.name, w.value) for w in result.writes] == [("A", "1"), ("B", "2")]


def test_include_narrows_the_layers(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.sh": "echo $SH_KNOB\n",
            "b.yaml": "x: ${YAML_KNOB:1}\n",
            "c.py": 'import os\nos.environ.get("PY_KNOB")\n',
        },
    )
    everything = scan([tmp_path], root=tmp_path, jobs=1)
    python = scan([tmp_path], Settings(include=("*.py",)), root=tmp_path, jobs=1)
    assert [k.name for k in everything.knobs] == ["PY_KNOB", "SH_KNOB", "YAML_KNOB"]
    assert [k.name for k in python.knobs] == ["PY_KNOB"]


def test_a_warm_scan_gives_the_same_result(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "src",
        {
            "hook.sh": 'if [[ "${D:-0}" == "1" ]]; then\n  echo "env.Y=0"\nfi\n',
            "c.yaml": "a:\n  b: ${X:true}\n",
        },
    )
    cache = tmp_path / "cache"
    cold = scan([tmp_path / "src"], root=tmp_path, jobs=1, cache_dir=cache)
    warm = scan([tmp_path / "src"], root=tmp_path, jobs=1, cache_dir=cache)
    assert (warm, warm.stats.cache_hits, warm.stats.files_parsed) == (cold, 2, 0)
    assert [w.when for w in warm.writes] == [(("D", "1"),)]


def test_a_warm_scan_keeps_computed_defaults_and_values(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "src",
        {"run.sh": 'echo "${OUT:-${HOME}/out}"\nexport N=$(nproc)\n', "use.sh": 'echo "$N"\n'},
    )
    cache = tmp_path / "cache"
    cold = scan([tmp_path / "src"], root=tmp_path, jobs=1, cache_dir=cache)
    warm = scan([tmp_path / "src"], root=tmp_path, jobs=1, cache_dir=cache)
    assert (warm, warm.stats.cache_hits) == (cold, 2)
    out = warm.knob("OUT")
    assert out is not None
    assert [(s.default, s.default_computed) for s in out.sites] == [(None, "${HOME}/out")]
    assert [(w.name, w.value, w.computed) for w in warm.writes] == [("N", None, "$(nproc)")]


def test_a_script_nested_too_deeply_is_an_error_for_that_file_only(tmp_path: Path) -> None:
    depth = 3000
    deep = 'if [ "$X" = 1 ]; then\n' * depth + "echo $Y\n" + "fi\n" * depth
    write_tree(tmp_path, {"deep.sh": deep, "ok.sh": "echo ${OK_KNOB:-1}\n"})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [k.name for k in result.knobs] == ["OK_KNOB"]
    assert [(e.path, e.message) for e in result.errors] == [
        (
            "deep.sh",
            "The script nests its statements too deeply to analyse; nothing of it is listed.",
        )
    ]


def test_a_flag_is_judged_by_the_type_its_key_has_in_the_tree(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "configs/defaults.yaml": "use_fused_norm: true\nlog_every: 10\n",
            "run.sh": 'train --use-fused-norm "${X_NORM:-1}" --log_every "${X_LOG:-1}"\n',
        },
    )
    result = scan([tmp_path], root=tmp_path, jobs=1)
    verdicts = {
        k.name: [(s.gate.kind, s.default_on, s.gate.off_value, s.target) for s in k.sites]
        for k in result.knobs
    }
    assert verdicts == {
        "X_NORM": [(GateKind.BOOLEAN, True, "0", "--use-fused-norm")],
        "X_LOG": [(GateKind.VALUE, None, None, "--log_every")],
    }


def test_a_call_chain_deeper_than_the_bound_reads_every_body_once(tmp_path: Path) -> None:
    from scanner.launcher.shell import MAX_CALLS

    count = 3 * MAX_CALLS
    bodies = "".join(f'f{i}() {{ echo "$A{i}"; f{i - 1}; }}\n' for i in range(count))
    result, _ = scanned(tmp_path, bodies + f"f{count - 1}\n")
    assert result.errors == ()
    got = sorted((s.name, s.function) for k in result.knobs for s in k.sites)
    assert got == sorted((f"A{i}", f"f{i}") for i in range(count))
