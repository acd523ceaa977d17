"""Speed never buys a different answer: cache, processes and narrow parsing change nothing."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from hashlib import blake2b
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner import ScanResult, Settings, scan
from scanner.accessors import holds_word
from scanner.interpret.expressions import _literal
from scanner.run import pool as scanner_pool
from scanner.run.cache import Cache
from scanner.run.readers import process
from scanner.run.work import FileOutcome, FileTask, Options
from scanner.syntax.index import WrapperIndex, _called, _calls
from scanner.syntax.walk import _FORMATTING, walk
from tests.conftest import REPO, run_knobs, write_tree
from tests.strategies import gate_sources, module_sources

EXAMPLES = REPO / "examples"

WRAPPERS = {
    "pkg/__init__.py": "",
    "pkg/envs.py": """
        import os


        def env_flag(name, default=False):
            raw = os.environ.get(name)
            if raw is None:
                return default
            return raw.strip().lower() in ("1", "true", "yes", "on")


        def fusion_on(name):
            return env_flag(name, default=True)
        """,
    "pkg/model.py": """
        from pkg.envs import fusion_on

        class Block:
            def forward(self, x):
                if fusion_on("PRIMUS_FUSED"):
                    return f"{x}"
                return x
        """,
}


@pytest.fixture
def force_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run even a handful of files through worker processes, and search them there."""
    monkeypatch.setattr(scanner_pool, "SERIAL_BELOW", 0)
    monkeypatch.setattr(scanner_pool, "SEARCH_ALONE_BELOW", 0)


def every_way(root: Path, cache: Path) -> Iterator[tuple[str, ScanResult]]:
    """The same scan, the slow plain way first, then every faster way."""
    yield "whole files, 1 process", scan([root], Settings(narrow=False), root=root, jobs=1)
    yield "narrow, 1 process", scan([root], root=root, jobs=1)
    yield "narrow, 2 processes", scan([root], root=root, jobs=2)
    yield "cold cache", scan([root], root=root, jobs=1, cache_dir=cache)
    yield "warm cache", scan([root], root=root, jobs=2, cache_dir=cache)


def test_every_way_agrees_on_the_examples(tmp_path: Path, force_pool: None) -> None:
    results = dict(every_way(EXAMPLES, tmp_path / "cache"))
    reference = results.pop("whole files, 1 process")
    assert len(reference.knobs) == 12
    for way, result in results.items():
        assert result == reference, way
    assert results["warm cache"].stats.files_parsed == 0


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sources=st.lists(gate_sources(), min_size=1, max_size=4))
def test_every_way_agrees_on_generated_gates(sources: list[str], force_pool: None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files = {f"gate{i}.py": source for i, source in enumerate(sources)}
        write_tree(root, {**WRAPPERS, **files})
        results = dict(every_way(root, root.parent / f"{root.name}-cache"))
    reference = results.pop("whole files, 1 process")
    assert reference.knob("PRIMUS_FUSED") is not None
    for way, result in results.items():
        assert result == reference, way


@settings(max_examples=60, deadline=None)
@given(source=module_sources())
def test_narrowing_agrees_with_whole_files_on_generated_modules(source: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = write_tree(Path(folder), {"mod.py": source})
        whole = scan([root], Settings(narrow=False), root=root, jobs=1)
        narrowed = scan([root], root=root, jobs=1)
    assert [k.name for k in whole.knobs] == ["PRIMUS_PROP"], source
    assert narrowed == whole, source


def test_a_warm_scan_parses_nothing_and_one_change_parses_one_file(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "tree", WRAPPERS)
    cache = tmp_path / "cache"
    cold = scan([tree], root=tree, cache_dir=cache)
    warm = scan([tree], root=tree, cache_dir=cache)
    assert (cold.stats.files_parsed, warm.stats.files_parsed) == (2, 0)
    assert warm.stats.cache_hits == 2 and warm == cold
    model = tree / "pkg" / "model.py"
    model.write_text(model.read_text().replace("PRIMUS_FUSED", "PRIMUS_FUSED_V2"))
    changed = scan([tree], root=tree, cache_dir=cache)
    assert changed.stats.files_parsed == 1
    assert [k.name for k in changed.knobs] == ["PRIMUS_FUSED_V2"]


EDITED = """
    import os

    # a comment


    def flag(name):
        return os.environ.get(name) == "1"


    def helper(x):
        return x + 1


    def fused():
        return flag("FUSED_A")
    """

EDITS = {
    "a comment": (("# a comment", "# another comment"), 0),
    "code that reads nothing": (("x + 1", "x + 2"), 0),
    "a comment at the end": (('flag("FUSED_A")', 'flag("FUSED_A")\n\n# the end'), 0),
    "a gate": (('== "1"', '== "on"'), 1),
    "lines above the reads": (("import os", "import os\n\n"), 1),
    "a call to the file's own wrapper": (("FUSED_A", "FUSED_B"), 1),
}


@pytest.mark.parametrize(("edit", "parsed"), EDITS.values(), ids=EDITS.keys())
def test_an_edit_is_parsed_again_only_when_it_changes_what_the_analysis_reads(
    tmp_path: Path, edit: tuple[str, str], parsed: int
) -> None:
    tree = write_tree(tmp_path / "tree", {"mod.py": EDITED})
    cache = tmp_path / "cache"
    scan([tree], root=tree, cache_dir=cache)
    module = tree / "mod.py"
    old, new = edit
    assert old in module.read_text()
    module.write_text(module.read_text().replace(old, new))
    again = scan([tree], root=tree, cache_dir=cache)
    assert again == scan([tree], root=tree)  # the same answer as without a cache
    assert again.stats.files_parsed == parsed


def test_a_stored_result_holds_only_if_the_files_own_wrappers_narrow_it_the_same_way(
    tmp_path: Path,
) -> None:
    # `fused` mentions no variable: only the round that finds `flag` keeps it.
    path = write_tree(tmp_path / "tree", {"mod.py": EDITED}) / "mod.py"
    task = FileTask(path=path, rel="mod.py", module="mod", index=WrapperIndex())
    options = Options(cache_dir=tmp_path / "cache")
    assert [s.name for s in process(task, options).result.sites] == ["FUSED_A"]
    path.write_text(path.read_text().replace("FUSED_A", "FUSED_B"))
    again = process(task, options)
    assert not again.cached
    assert [s.name for s in again.result.sites] == ["FUSED_B"]


def test_a_file_that_defines_its_own_wrappers_is_analysed_once(tmp_path: Path) -> None:
    # Its own rounds find `flag`; the scan's next round, which knows `flag` too,
    # takes the outcome stored for that instead of analysing the file again.
    tree = write_tree(tmp_path / "tree", {"mod.py": EDITED})
    cold = scan([tree], root=tree, jobs=1, cache_dir=tmp_path / "cache")
    assert (cold.stats.analyses, cold.stats.files_parsed, cold.stats.cache_hits) == (1, 1, 0)
    assert cold.stats.rounds == 2  # the second round took the stored outcome
    assert cold == scan([tree], root=tree, jobs=1)  # the same answer as without a cache
    assert [k.name for k in cold.knobs] == ["FUSED_A"]


NESTED_HELPER = """import os


def load():
    def parse_env(var):
        return os.environ.get(var, "0") == "1"

    return parse_env("{name}")


def only_defined(name):
    return os.getenv(name)
"""


def test_helpers_nested_in_other_files_never_make_a_file_analysed_twice(
    tmp_path: Path,
) -> None:
    # Each file calls a helper of its own that another file names the same way (and
    # defines a wrapper it never calls): no other file can call them, so the scan's
    # next round finds nothing new for either file.
    tree = write_tree(
        tmp_path / "tree",
        {
            "a.py": NESTED_HELPER.format(name="A_FUSED"),
            "b.py": NESTED_HELPER.format(name="B_FUSED"),
        },
    )
    cold = scan([tree], root=tree, jobs=1, cache_dir=tmp_path / "cache")
    assert (cold.stats.analyses, cold.stats.files_parsed) == (2, 2)
    assert [k.name for k in cold.knobs] == ["A_FUSED", "B_FUSED"]
    assert cold == scan([tree], root=tree, jobs=1)


def test_an_edit_that_leaves_the_reads_alone_never_loads_the_parser(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "tree", {"mod.py": EDITED})
    cache = tmp_path / "cache"
    scan([tree], root=tree, cache_dir=cache)
    module = tree / "mod.py"
    module.write_text(module.read_text().replace("x + 1", "x + 2"))
    program = (
        "import sys; from scanner import scan; "
        f"r = scan([{str(tree)!r}], root={str(tree)!r}, cache_dir={str(cache)!r}); "
        "print(r.stats.files_parsed, r.stats.cache_hits, 'libcst' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert done.stdout == "0 1 False\n"


class _Inline(Executor):
    """Runs each task as it is submitted, on this thread, and records the order."""

    def __init__(self) -> None:
        self.submitted: list[str] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted.append(args[0].rel)
        future: Future[Any] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def test_huge_files_take_turns_and_the_smallest_files_run_beside_them(tmp_path: Path) -> None:
    kb = 1024
    sizes = {"h1.py": 700 * kb, "h2.py": 600 * kb, "a.py": 300 * kb, "b.py": 200 * kb}
    sizes |= {"c.py": 100 * kb, "d.py": 50 * kb}
    tasks = []
    for rel, size in sizes.items():
        (tmp_path / rel).write_bytes(b"#" * size)
        tasks.append(FileTask(path=tmp_path / rel, rel=rel, module=rel[:-3], index=WrapperIndex()))
    executor = _Inline()
    runner = scanner_pool.Runner(Options(), jobs=2)
    done = [o.rel for o in runner.schedule(executor, lambda t: FileOutcome(rel=t.rel), tasks)]
    # h1 beside the smallest; h2 once h1 is done, beside the next smallest; then the
    # rest biggest first.
    assert executor.submitted == ["h1.py", "d.py", "h2.py", "c.py", "a.py", "b.py"]
    assert sorted(done) == sorted(sizes)


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json"))


@pytest.mark.parametrize("damage", ["truncate", "flip-a-byte", "garbage", "valid-json-wrong-shape"])
def test_a_damaged_cache_entry_is_ignored_and_rewritten(tmp_path: Path, damage: str) -> None:
    tree = write_tree(tmp_path / "tree", WRAPPERS)
    cache = tmp_path / "cache"
    reference = scan([tree], root=tree, cache_dir=cache)
    for entry in _entries(cache):
        raw = entry.read_bytes()
        if damage == "truncate":
            entry.write_bytes(raw[: len(raw) // 2])
        elif damage == "flip-a-byte":
            entry.write_bytes(raw[:-5] + bytes([raw[-5] ^ 0x01]) + raw[-4:])
        elif damage == "garbage":
            entry.write_bytes(b"\x00\xff not a cache entry")
        else:
            body = b'{"sites": 3}'
            entry.write_bytes(blake2b(body, digest_size=16).hexdigest().encode() + b"\n" + body)
    again = scan([tree], root=tree, cache_dir=cache)
    assert again == reference
    assert again.stats.files_parsed == 2  # nothing trusted from the damaged entries
    store = Cache(cache)
    assert all(store.get(e.stem) is not None for e in _entries(cache))  # rewritten


def test_an_unusable_cache_folder_is_skipped_with_a_note(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "tree", WRAPPERS)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")
    result = scan([tree], root=tree, cache_dir=blocked)
    assert result == scan([tree], root=tree)
    (note,) = result.notes
    assert note == f"The cache was skipped: {blocked}: Not a directory"


def test_entries_of_other_scanner_versions_go_once_unused_for_two_weeks(tmp_path: Path) -> None:
    """The folders other versions of the scanner made (named by their fingerprint, with the
    marker naming it): gone after two weeks unused. A folder without the marker is not a
    scan's, however old (tests/test_scan_cache_prune.py holds the rest of the rule)."""
    tree = write_tree(tmp_path / "tree", WRAPPERS)
    cache = tmp_path / "cache"
    day = 24 * 3600
    versions = {"old": ("a" * 32, 15), "recent": ("b" * 32, 13), "old-unmarked": ("c" * 32, 15)}
    for label, (version, days) in versions.items():
        entry = cache / "v1" / version / "ab" / ("ab" + "0" * 62 + ".json")
        entry.parent.mkdir(parents=True)
        entry.write_text("{}")
        stamped = cache / "v1" / version / ("ab" if "unmarked" in label else "last-used")
        if stamped.name == "last-used":
            stamped.write_text(f"knobs scan cache {version}\n")
        os.utime(stamped, (time.time() - days * day,) * 2)
    os.utime(cache / "v1" / versions["old-unmarked"][0], (time.time() - 15 * day,) * 2)
    scan([tree], root=tree, cache_dir=cache)
    left = sorted(p.name for p in (cache / "v1").iterdir())
    assert left == sorted(["b" * 32, "c" * 32, Cache(cache).folder.name])
    assert (Cache(cache).folder / "last-used").stat().st_mtime > time.time() - 60


def test_two_scans_at_once_share_a_cache_safely(tmp_path: Path) -> None:
    gates = {
        f"pkg/gate{i}.py": f"import os\n\nG = os.environ.get('KNOB_{i}') == '1'\n"
        for i in range(40)
    }
    tree = write_tree(tmp_path / "tree", {**WRAPPERS, **gates})
    cache = tmp_path / "cache"
    command = [sys.executable, "-m", "knobregistry", "scan", "--format", "json", "."]
    expected = run_knobs("scan", "--format", "json", "--no-cache", ".", cwd=tree).stdout
    for _ in range(3):  # cold, then warm, each time two scans at once
        both = [
            subprocess.Popen(
                [*command, "--cache-dir", str(cache)], cwd=tree, stdout=subprocess.PIPE, text=True
            )
            for _ in range(2)
        ]
        outputs = [process.communicate()[0] for process in both]
        assert [process.returncode for process in both] == [0, 0]
        assert outputs == [expected, expected]
    assert not list(cache.rglob(".tmp-*"))  # every write was completed or cleaned up
    store = Cache(cache)
    assert all(store.get(entry.stem) is not None for entry in _entries(cache))


def test_the_cli_says_when_the_cache_was_skipped(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "tree", WRAPPERS)
    (tmp_path / "blocked").write_text("")
    result = run_knobs("scan", ".", cwd=tree, env={"KNOBS_CACHE_DIR": str(tmp_path / "blocked")})
    assert result.returncode == 0
    assert result.stderr == (
        f"knobs scan: note: The cache was skipped: {tmp_path / 'blocked'}: Not a directory\n"
    )
    assert "PRIMUS_FUSED" in result.stdout
    quiet = run_knobs("scan", ".", "--no-cache", cwd=tree)
    assert (quiet.stderr, quiet.stdout) == ("", result.stdout)


class _Order(cst.CSTVisitor):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, _FORMATTING):
            self.seen.append(type(node).__name__)
        return True


@pytest.mark.parametrize(
    "path",
    sorted([*(REPO / "scanner").glob("*.py"), *EXAMPLES.rglob("*.py")]),
    ids=lambda p: p.relative_to(REPO).as_posix(),
)
def test_the_walk_visits_nodes_in_libcst_order(path: Path) -> None:
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    expected = _Order()
    module.visit(expected)
    walked: list[str] = []

    def enter(node: cst.CSTNode) -> bool:
        walked.append(type(node).__name__)
        return True

    walk(module, enter)
    assert walked == expected.seen


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=12),
    st.sampled_from(["", "r", "u", "R", "b"]),
    st.sampled_from(["'", '"', "'''", '"""']),
)
def test_string_literals_decode_as_python_does(text: str, prefix: str, quote: str) -> None:
    source = repr(text) if prefix in ("", "u") and len(quote) == 1 else None
    if source is None:
        body = text.replace("\\", "\\\\").replace(quote[0], "\\" + quote[0])
        if prefix in ("r", "R"):
            if "\\" in text or quote[0] in text or text.endswith("\\"):
                return
            body = text
        if prefix == "b" and not text.isascii():
            return
        if "\n" in body and len(quote) == 1:
            body = body.replace("\n", "\\n")
        if "\r" in body:
            body = body.replace("\r", "\\r")
        source = f"{prefix}{quote}{body}{quote}"
    try:
        expected = ast.literal_eval(source)
    except (SyntaxError, ValueError):
        return
    assert _literal(source) == expected


def test_a_cached_result_follows_the_other_files_it_learnt_from(tmp_path: Path) -> None:
    # A read named by a constant of another module, through a wrapper re-exported by
    # the package's __init__: the result depends on both files, and on nothing else of them.
    tree = write_tree(
        tmp_path / "tree",
        {
            "pkg/__init__.py": "from .flags import flag\n",
            "pkg/names.py": 'KNOB = "PRIMUS_FIRST"\n',
            "pkg/flags.py": "import os\n\n\ndef flag(name):\n    return os.getenv(name)\n",
            "pkg/use.py": "import os\n\nfrom pkg import flag\nfrom pkg.names import KNOB\n\n"
            'A = os.getenv(KNOB, "1") != "0"\nB = flag("PRIMUS_FLAG")\n',
        },
    )
    cache = tmp_path / "cache"
    first = scan([tree], root=tree, cache_dir=cache)
    assert [k.name for k in first.knobs] == ["PRIMUS_FIRST", "PRIMUS_FLAG"]
    # An edit of the __init__ that leaves the re-export alone: every result still holds.
    (tree / "pkg/__init__.py").write_text("# the flags\nfrom .flags import flag\n")
    again = scan([tree], root=tree, cache_dir=cache)
    assert again.stats.files_parsed == 0  # the __init__ calls nothing; its user still holds
    assert again.knobs == first.knobs
    # The constant changes: the file that used it is analysed again.
    (tree / "pkg/names.py").write_text('KNOB = "PRIMUS_SECOND"\n')
    changed = scan([tree], root=tree, cache_dir=cache)
    assert [k.name for k in changed.knobs] == ["PRIMUS_FLAG", "PRIMUS_SECOND"]
    # The re-export goes: the call no longer reaches the wrapper through the package.
    (tree / "pkg/__init__.py").write_text("")
    gone = scan([tree], root=tree, cache_dir=cache)
    assert [k.name for k in gone.knobs] == ["PRIMUS_SECOND"]


CALLS = [
    ("foo(1)", True),
    ("x.foo (1)", True),
    ("import m.foo as f", True),
    ("def foo(): pass", False),
    ("class foo(Base): pass", False),
    ("afoo(1)", False),
    ("foo_x(1)", False),
    ("foo = 1", False),
    ("def foo(): pass\nfoo()", True),
    ("# foo\nfoo\n(", True),
]


@pytest.mark.parametrize(("text", "called"), CALLS, ids=[t for t, _ in CALLS])
def test_a_call_of_a_wrapper_is_found_where_it_occurs(text: str, called: bool) -> None:
    assert _calls(text.encode(), b"foo") is called


@given(st.text(alphabet="fo (_.\nadeslcm", max_size=60))
def test_looking_at_each_occurrence_agrees_with_searching_the_whole_file(text: str) -> None:
    data = text.encode()
    whole = holds_word(data, b"foo") and _called(b"foo").search(data) is not None
    assert _calls(data, b"foo") is whole
