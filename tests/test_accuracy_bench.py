"""The accuracy benchmark runs end to end on the small packages of tests/data/bench.

It is a measurement, so these tests pin its format and its arithmetic: every
recall it prints is what the fixture's truth implies for the names the scanner
finds today, and the plain reads are always found.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from scanner import Gate, GateKind, Language, Role, ScanResult, scan
from tests.conftest import REPO
from tests.processes import benchmark_lines, run_python

BENCH = REPO / "tests" / "data" / "bench"

# package: (names the scanner must find at least, names in the fixture's truth):
# every form the fixtures hold (descriptors over a compiled getenv, closure
# factories, re-exported helpers, star imports, imported constants, loops, nested
# helpers) is read, so recall is full.
EXPECTED_RECALL = {
    "triton": (9, 9),
    "vllm": (6, 6),
    "transformers": (6, 6),
    "deepspeed": (9, 9),
    "megatron-core": (5, 5),
}
FOLDERS = {
    "triton": "triton",
    "vllm": "vllm",
    "transformers": "transformers",
    "deepspeed": "deepspeed",
    "megatron-core": "megatron",
}
HEADLINE = re.compile(r"(\S+) fixture: found (\d+) of (\d+) \(recall (\d+\.\d)%\)")
SCAN = re.compile(r"  scan: \d+ files, \d+ knobs, \d+ dynamic reads, \d+ errors, \d+\.\d\d s")
MISSED = re.compile(r"  missed: ([A-Z_][A-Z0-9_]*)(?: at (\S+:\d+))?(?:: (.+))?")
TOTAL = re.compile(r"total: found (\d+) of (\d+) \(recall \d+\.\d%\)")
ROW = re.compile(r"  (\S+) +(\d+) +(\d+) +(\d+)")
REASON = re.compile(r"dynamic read there: .+|through \w+\(\): dynamic read .+ at \S+:\d+")
WRONG = re.compile(r"  wrong: (\S+) (\S+:\d+(?::\d+)?) ([A-Z_][A-Z0-9_]*): (.+)")


TREES = ("--primus", "tests/data/bench/primus", "--megatron-lm", "tests/data/bench/megatron-lm")
LAUNCHER = "tests/data/bench/launcher_verdicts.yaml"


def run_benchmark(*args: str) -> list[str]:
    """``benchmarks/accuracy.py ARGS`` on the fixtures, serially; its output lines."""
    return benchmark_lines("accuracy.py", "--fixtures", "--jobs", "1", *args, timeout=120)


@pytest.fixture(scope="module")
def output() -> list[str]:
    return run_benchmark()


def section(lines: list[str], title: str) -> list[str]:
    """The section whose first line starts with ``title:``, up to the blank line after it."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{title}: "))
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    return lines[start:end]


def packages(lines: list[str]) -> dict[str, list[str]]:
    """Each package's block of the reach section: its headline, then its indented lines."""
    blocks: dict[str, list[str]] = {}
    current: list[str] = []
    for line in lines[1:]:
        if HEADLINE.fullmatch(line):
            current = blocks.setdefault(line.split()[0], [])
        elif not line.startswith("  "):
            break
        current.append(line)
    return blocks


def truth(package: str) -> dict[str, str]:
    """The fixture's ground truth, read as the benchmark defines it: name -> location."""
    if package == "vllm":
        tree = ast.parse((BENCH / "vllm/vllm/envs.py").read_text(encoding="utf-8"))
        table = next(
            node.value
            for node in tree.body
            if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Dict)
        )
        excluded = (BENCH / "truth/vllm-exclusions.txt").read_text(encoding="utf-8")
        keys = {
            key.value: f"vllm/envs.py:{key.lineno}"
            for key in table.keys
            if isinstance(key, ast.Constant) and isinstance(key.value, str)
        }
        return {name: where for name, where in keys.items() if f"\n{name} " not in excluded}
    listed = (BENCH / "truth" / f"{package}.txt").read_text(encoding="utf-8").splitlines()
    return {
        line.split("#")[0].strip(): line.split("#")[1].split()[0]
        for line in listed
        if line.split("#")[0].strip()
    }


def test_the_reach_section_reports_every_fixture_package_in_order(output: list[str]) -> None:
    assert output[0] == (
        "reach: environment variables read, found by the scanner (the fixtures of tests/data/bench)"
    )
    blocks = packages(output)
    assert list(blocks) == list(EXPECTED_RECALL)
    details = ("  truth: ", "  excluded: ", "  missed: ")
    for lines in blocks.values():
        assert SCAN.fullmatch(lines[1]), lines[1]
        assert all(line.startswith(details) for line in lines[2:])
    found = [HEADLINE.fullmatch(block[0]) for block in blocks.values()]
    total = TOTAL.fullmatch(output[1 + sum(len(b) for b in blocks.values())])
    assert total is not None
    assert int(total[1]) == sum(int(m[2]) for m in found if m)
    assert int(total[2]) == sum(int(m[3]) for m in found if m)


@pytest.mark.parametrize("package", list(EXPECTED_RECALL))
def test_each_recall_is_what_the_truth_implies_for_the_names_the_scanner_finds(
    output: list[str], package: str
) -> None:
    lines = packages(output)[package]
    headline = HEADLINE.fullmatch(lines[0])
    assert headline is not None
    found, total, percent = int(headline[2]), int(headline[3]), float(headline[4])
    names = truth(package)
    root = BENCH / package
    scanned = {k.name for k in scan([root / FOLDERS[package]], root=root, jobs=1).knobs}
    missed = {m[1]: m[2] for m in map(MISSED.fullmatch, lines) if m}
    assert total == len(names) == EXPECTED_RECALL[package][1]
    assert found == len(names.keys() & scanned) == total - len(missed)
    assert found >= EXPECTED_RECALL[package][0]
    assert percent == round(100 * found / total, 1)
    assert missed == {name: names[name] for name in names.keys() - scanned}


def test_misses_say_which_dynamic_read_the_scanner_left_behind(output: list[str]) -> None:
    reasons = {m[1]: m[3] for m in map(MISSED.fullmatch, output) if m and m[3]}
    for reason in reasons.values():
        assert re.fullmatch(REASON, reason), reason
    for name in ("VLLM_ATTENTION_BACKEND", "NVTE_UNFUSED_ATTN"):
        if name in reasons:
            assert reasons[name].startswith("through "), reasons[name]


def test_the_verdict_section_counts_every_fixture_entry_once(output: list[str]) -> None:
    entries = yaml.safe_load((BENCH / "verdicts.yaml").read_text(encoding="utf-8"))["sites"]
    lines = section(output, "verdicts")
    assert lines[0] == f"verdicts: tests/data/bench/verdicts.yaml, {len(entries)} sites"
    verdicts = lines[1:]
    assert re.fullmatch(r"  package +right +unknown +wrong", verdicts[0])
    rows = {m[1]: [int(m[2]), int(m[3]), int(m[4])] for m in map(ROW.fullmatch, verdicts) if m}
    per_package = Counter(entry["package"] for entry in entries)
    assert {p: sum(counts) for p, counts in rows.items()} == {
        p: n for p, n in per_package.items() if p != "primus"
    }
    assert (
        "  primus: 1 sites skipped (pass --primus PATH, a checkout of AMD-AGI/Primus)" in verdicts
    )
    wrong = [m for m in map(WRONG.fullmatch, verdicts) if m]
    assert Counter(m[1] for m in wrong) == Counter(
        {p: counts[2] for p, counts in rows.items() if counts[2]}
    )
    missing = {m[3]: m[4] for m in wrong if m[4].startswith("missing")}
    assert missing["DEEPSPEED_TIMEOUT"] == "missing (its sites: deepspeed/constants.py:7)"


@pytest.mark.parametrize(
    ("option", "what"),
    [
        ("--primus", "a checkout of AMD-AGI/Primus"),
        ("--megatron-lm", "a folder holding NVIDIA/Megatron-LM's examples/"),
    ],
)
def test_a_missing_tree_fails_before_measuring(tmp_path: Path, option: str, what: str) -> None:
    done = run_python("benchmarks/accuracy.py", "--fixtures", option, tmp_path / "no")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"accuracy: {option} {tmp_path / 'no'}: not a folder ({what})\n"


def test_a_megatron_lm_folder_without_its_examples_fails_before_measuring(tmp_path: Path) -> None:
    # The truth names its sites examples/...: the folder of examples/ itself would read all missing.
    (tmp_path / "llama").mkdir()
    done = run_python("benchmarks/accuracy.py", "--fixtures", "--megatron-lm", tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"accuracy: --megatron-lm {tmp_path}: holds no examples/"
        " (a folder holding NVIDIA/Megatron-LM's examples/): pass the folder above it\n"
    )


def test_the_benchmark_modules_import_without_side_effects() -> None:
    code = "import accuracy, accuracy_sources, accuracy_trace, accuracy_verdicts"
    done = run_python("-c", code, cwd=REPO / "benchmarks")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_primus_entries_are_judged_against_the_checkout_given() -> None:
    lines = run_benchmark("--package", "vllm", "--primus", "tests/data/bench/primus")
    assert list(packages(lines)) == ["vllm"]
    verdicts = section(lines, "verdicts")
    rows = {m[1]: sum(map(int, m.groups()[1:])) for m in map(ROW.fullmatch, verdicts) if m}
    assert rows == {"vllm": 4, "primus": 1}
    assert "  deepspeed: 3 sites skipped (not scanned in this run)" in verdicts
    assert not any(line.startswith("  primus:") for line in verdicts)


def test_the_generated_gates_benchmark_counts_every_draw_and_finds_none_wrong() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "generated_gates.py"), "--examples", "40"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"generated gates: 40 drawn \(seed 0\), [0-9.]+ s", lines[0])
    counts = {}
    for line in lines[1:5]:
        found = re.fullmatch(r"  (\w+) +(\d+) +[0-9.]+% .*", line)
        assert found is not None, line
        counts[found.group(1)] = int(found.group(2))
    assert list(counts) == ["switch", "value", "unknown", "wrong"]
    assert sum(counts.values()) == 40 and counts["wrong"] == 0


def test_the_launcher_section_skips_the_trees_not_given(output: list[str]) -> None:
    assert section(output, "launcher verdicts") == [
        f"launcher verdicts: {LAUNCHER}, 6 sites",
        "  package          right  unknown  wrong",
        "  primus: 4 sites skipped (pass --primus PATH, a checkout of AMD-AGI/Primus)",
        "  megatron-lm: 2 sites skipped"
        " (pass --megatron-lm PATH, a folder holding NVIDIA/Megatron-LM's examples/)",
    ]


def role_rows(entries: list[dict[str, object]]) -> tuple[list[str], list[str]]:
    """The role table's rows and its wrong lines, as the fixture trees' scans imply them."""
    rows: list[str] = []
    wrong: list[str] = []
    for package in ("primus", "megatron-lm"):
        root = BENCH / package
        result = scan([root], root=root, jobs=1)
        counts = Counter[str]()
        judged = (e for e in entries if e["package"] == package and e["role"] is not None)
        for entry in (e for e in judged if e["kind"] in ("boolean", "presence")):
            knob = result.knob(str(entry["name"]))
            role = knob.role.value if knob is not None else None
            verdict = (
                "unknown" if role == "unknown" else "right" if role == entry["role"] else "wrong"
            )
            counts[verdict] += 1
            if verdict != "wrong":
                continue
            detail = "the scan has no knob of that name"
            if knob is not None:
                why = f" ({knob.role_reason})" if knob.role_reason else ""
                detail = f"role expected {entry['role']!r}, found {role!r}{why}"
            where = f"{entry['path']}:{entry['line']} {entry['name']}"
            wrong.append(f"  role wrong: {package} {where}: {detail}")
        rows.append(
            f"  {package:<16}{counts['right']:>6}{counts['unknown']:>9}{counts['wrong']:>7}"
        )
    return rows, wrong


def test_the_launcher_section_judges_the_trees_given_whole() -> None:
    lines = section(run_benchmark(*TREES), "launcher verdicts")
    entries = yaml.safe_load((BENCH / "launcher_verdicts.yaml").read_text(encoding="utf-8"))
    rows, wrong_roles = role_rows(entries["sites"])
    assert lines[:4] == [
        f"launcher verdicts: {LAUNCHER}, 6 sites",
        "  package          right  unknown  wrong",
        "  primus               3        0      1",
        "  megatron-lm          2        0      0",
    ]
    assert lines[4:7] == ["  role             right  unknown  wrong", *rows]
    assert lines[7] == (
        "  wrong: primus examples/megatron/exp_pretrain.yaml:4 PRIMUS_USER:"
        " missing (its sites: examples/megatron/exp_pretrain.yaml:3)"
    )
    assert lines[8:] == wrong_roles


@pytest.fixture
def verdicts_module(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/accuracy_verdicts.py, imported as the benchmark imports it."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    return importlib.import_module("accuracy_verdicts")


def with_roles(result: ScanResult, roles: dict[str, tuple[Role, str | None]]) -> ScanResult:
    """``result`` with the given knobs' roles and reasons replaced."""
    knobs = tuple(
        dataclasses.replace(k, role=roles[k.name][0], role_reason=roles[k.name][1])
        if k.name in roles
        else k
        for k in result.knobs
    )
    return dataclasses.replace(result, knobs=knobs)


def test_roles_are_judged_against_the_knob_and_wrong_ones_say_why(
    verdicts_module: ModuleType,
) -> None:
    root = BENCH / "primus"
    result = with_roles(
        scan([root], root=root, jobs=1),
        {
            "PRIMUS_DETERMINISTIC": (Role.UNKNOWN, "no evidence in the code"),
            "PRIMUS_USE_TURBO_DEEPEP": (Role.FEATURE, "a trainer config key"),
            # value entries: their role is the verdict's, not judged again
            "PRIMUS_TEAM": (Role.UNKNOWN, "no evidence in the code"),
            "PRIMUS_USER": (Role.KERNEL, "a name"),
        },
    )
    lines = verdicts_module.report(
        BENCH / "launcher_verdicts.yaml", {"primus": result}, {}, "launcher verdicts"
    )
    assert lines == [
        f"launcher verdicts: {LAUNCHER}, 6 sites",
        "  package          right  unknown  wrong",
        "  primus               3        0      1",
        "  megatron-lm: 2 sites skipped (not scanned in this run)",
        "  role             right  unknown  wrong",
        "  primus               0        1      1",
        "  wrong: primus examples/megatron/exp_pretrain.yaml:4 PRIMUS_USER:"
        " missing (its sites: examples/megatron/exp_pretrain.yaml:3)",
        "  role wrong: primus examples/megatron/exp_pretrain.yaml:13 PRIMUS_USE_TURBO_DEEPEP:"
        " role expected 'kernel', found 'feature' (a trainer config key)",
    ]


def test_a_site_whose_gate_or_layer_differs_is_wrong_with_each_difference(
    verdicts_module: ModuleType,
) -> None:
    root = BENCH / "primus"
    result = scan([root], root=root, jobs=1)
    knob = result.knob("PRIMUS_DETERMINISTIC")
    assert knob is not None
    site = dataclasses.replace(
        knob.sites[0], gate=Gate(kind=GateKind.VALUE), language=Language.YAML
    )
    changed = dataclasses.replace(knob, sites=(site,))
    result = dataclasses.replace(
        result, knobs=tuple(changed if k is knob else k for k in result.knobs)
    )
    entries = verdicts_module.load(BENCH / "launcher_verdicts.yaml", ("language", "role"))
    judged = verdicts_module.judge(entries[0], result)
    assert (judged.verdict, judged.detail) == (
        "wrong",
        "kind expected 'boolean', found 'value'; default_on expected False, found None;"
        " off_value expected any but ['1'], found None;"
        " language expected 'shell', found 'yaml'",
    )
    assert verdicts_module.judge_role(entries[0], result).verdict == "right"  # determinism


def test_a_launcher_entry_without_a_role_or_with_a_bad_one_is_refused(
    verdicts_module: ModuleType, tmp_path: Path
) -> None:
    entry = {
        "package": "megatron-lm",
        "path": "examples/train.sh",
        "line": 3,
        "name": "TP",
        "kind": "value",
        "polarity": "enable",
        "language": "shell",
    }
    path = tmp_path / "launcher_verdicts.yaml"
    sites = [
        entry,
        {**entry, "role": "switch", "language": "bash"},
        {**entry, "role": None, "language": None},
    ]
    path.write_text(yaml.safe_dump({"sites": sites}), encoding="utf-8")
    with pytest.raises(verdicts_module.BenchError) as raised:
        verdicts_module.load(path, ("language", "role"))
    assert str(raised.value).splitlines()[1:] == [
        "  sites[0]: missing role (TP)",
        "  sites[1]: language, role: not a valid value (TP)",
        "  sites[2]: missing language (TP)",  # `role: null` says no role applies
    ]


def test_the_launcher_labels_are_one_role_per_knob_and_enough_of_each_tree(
    verdicts_module: ModuleType,
) -> None:
    entries = verdicts_module.load(
        REPO / "benchmarks" / "launcher_verdicts.yaml", ("language", "role")
    )
    roles: dict[tuple[str, str], set[str]] = {}
    for entry in entries:
        roles.setdefault((entry.package, entry.name), set()).add(entry.role)
        assert entry.reason, entry.where
        assert entry.language == ("yaml" if entry.path.endswith(".yaml") else "shell")
    assert {key: found for key, found in roles.items() if len(found) > 1} == {}
    per_package = Counter(entry.package for entry in entries)
    assert set(per_package) == {"primus", "megatron-lm"}
    assert per_package["megatron-lm"] >= 50
    assert 180 <= len(entries) <= 280
