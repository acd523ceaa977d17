"""Whole-tree behaviour: bad files, encodings, conflicts, match and exclude."""

from __future__ import annotations

from pathlib import Path

from scanner import GateKind, ScanError, Settings, scan
from scanner.source.files import excluded
from tests.conftest import write_tree

GOOD = 'import os\n\nON = os.environ.get("PRIMUS_GOOD", "1") != "0"\n'


def test_bad_files_are_errors_and_the_scan_goes_on(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a_good.py": GOOD,
            "b_syntax.py": 'import os\n\ndef broken(:\n    os.environ.get("PRIMUS_B")\n',
            "c_latin1.py": b'import os\n# caf\xe9\nX = os.environ.get("PRIMUS_C", "1")\n',
            "d_declared.py": (
                b"# -*- coding: latin-1 -*-\nimport os\n# caf\xe9\n"
                b'ON = os.environ.get("PRIMUS_D", "1") != "0"\n'
            ),
            "e_good.py": GOOD.replace("PRIMUS_GOOD", "PRIMUS_E"),
        },
    )
    result = scan([tmp_path], root=tmp_path)
    assert [k.name for k in result.knobs] == ["PRIMUS_D", "PRIMUS_E", "PRIMUS_GOOD"]
    assert result.knob("PRIMUS_D") is not None
    assert result.errors == (
        ScanError("b_syntax.py", "Syntax error at line 3, column 12: invalid syntax."),
        ScanError(
            "c_latin1.py",
            "Cannot decode byte 0xe9 on line 2 as utf-8 (the default encoding); add a "
            "'# -*- coding: ... -*-' line naming the file's encoding, or convert it to UTF-8.",
        ),
    )
    assert result.files_scanned == 5


def test_declared_latin1_file_positions_count_characters(tmp_path: Path) -> None:
    source = '# -*- coding: latin-1 -*-\nimport os\nA = "\xe9"; ON = os.getenv("PRIMUS_L", "1")\n'
    write_tree(tmp_path, {"m.py": source.encode("latin-1")})
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert (knob.sites[0].line, knob.sites[0].column) == (3, 15)


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    result = scan([tmp_path / "nope"], root=tmp_path)
    assert result.errors == (ScanError("nope", "No such file or folder."),)


def test_symlink_loop_is_an_error_and_the_scan_goes_on(tmp_path: Path) -> None:
    write_tree(tmp_path, {"good.py": GOOD})
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "back").symlink_to(tmp_path, target_is_directory=True)
    result = scan([tmp_path], root=tmp_path)
    assert [k.name for k in result.knobs] == ["PRIMUS_GOOD"]
    assert [e.path for e in result.errors] == ["loop.py"]
    assert result.errors[0].message.startswith("Cannot read the file: ")


def test_huge_file_is_an_error(tmp_path: Path) -> None:
    write_tree(tmp_path, {"big.py": GOOD + "#" * 2000 + "\n", "good.py": GOOD})
    result = scan([tmp_path], Settings(max_file_bytes=1000), root=tmp_path)
    assert [e.path for e in result.errors] == ["big.py"]
    assert "over the 1,000-byte limit" in result.errors[0].message
    assert [k.name for k in result.knobs] == ["PRIMUS_GOOD"]


def test_conflicting_defaults_are_flagged(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.py": 'import os\n\nA = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n',
            "b.py": 'import os\n\nB = os.environ.get("PRIMUS_HC_TRITON", "0") == "1"\n',
            "c.py": 'import os\n\nC = os.environ.get("PRIMUS_OK", "1") != "0"\n'
            'D = os.environ.get("PRIMUS_OK", "true").lower() not in ("0", "false")\n',
        },
    )
    result = scan([tmp_path], root=tmp_path)
    hc, ok = result.knobs
    assert hc.conflict
    assert hc.default_on is True
    assert hc.conflict_reason == "on by default at a.py:3 but off by default at b.py:3"
    assert not ok.conflict
    assert ok.off_value == "0"


def test_no_common_off_value_is_a_conflict(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.py": 'import os\n\nA = os.environ.get("PRIMUS_X", "1") != "0"\n',
            "b.py": 'import os\n\nB = os.environ.get("PRIMUS_X", "on") != "off"\n',
        },
    )
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert knob.conflict_reason == "no single value turns every site off"


def test_a_value_knob_with_two_defaults_is_noted_but_no_conflict(tmp_path: Path) -> None:
    # Only switches can disagree on being on by default; two block sizes are worth a note.
    write_tree(
        tmp_path,
        {
            "a.py": 'import os\n\nA = int(os.environ.get("PRIMUS_BLOCK", "64"))\n',
            "b.py": 'import os\n\nB = int(os.environ.get("PRIMUS_BLOCK", "128"))\n',
        },
    )
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert (knob.kind, knob.conflict, knob.conflict_reason) == (GateKind.VALUE, False, None)
    assert knob.reason == "sites fall back to different defaults: '128' at b.py:3, '64' at a.py:3"


def test_switch_sites_with_different_defaults_conflict(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.py": 'import os\n\nA = os.environ.get("PRIMUS_X", "1") == "1"\n',
            "b.py": 'import os\n\nB = os.environ.get("PRIMUS_X", "0") == "1"\n',
        },
    )
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert knob.conflict_reason == "on by default at a.py:3 but off by default at b.py:3"


def test_conditions_on_other_strings_ask_different_questions_no_conflict(
    tmp_path: Path,
) -> None:
    # The same default "INFO", two questions: no site disagrees about the variable.
    write_tree(
        tmp_path,
        {
            "a.py": 'import os\n\nA = os.environ.get("PRIMUS_LOG", "INFO") == "DEBUG"\n',
            "b.py": 'import os\n\nB = os.environ.get("PRIMUS_LOG", "INFO") in ("DEBUG", "INFO")\n',
        },
    )
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert [s.default_on for s in knob.sites] == [False, True]
    assert (knob.conflict, knob.conflict_reason) == (False, None)


def test_launch_facts_are_never_switches_nor_conflicts(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.py": 'import os\n\nA = int(os.environ.get("RANK", "0")) == 0\n',
            "b.py": 'import os\n\nB = os.environ.get("RANK", "-1") != "-1"\n',
        },
    )
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert (knob.kind, knob.default_on, knob.conflict) == (GateKind.LAUNCH, None, False)
    assert [(s.default, s.gate.kind) for s in knob.sites] == [
        ("0", GateKind.LAUNCH),
        ("-1", GateKind.LAUNCH),
    ]


def test_match_and_exclude(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/core.py": 'import os\n\nA = os.getenv("PRIMUS_A", "1") != "0"\n'
            'B = os.getenv("OTHER_B", "1") != "0"\n',
            "pkg/_triton_v1/impl.py": 'import os\n\nC = os.getenv("PRIMUS_C", "1") != "0"\n',
            "pkg/gen/skip.py": 'import os\n\nD = os.getenv("PRIMUS_D", "1") != "0"\n',
            ".venv/lib.py": 'import os\n\nE = os.getenv("PRIMUS_E", "1") != "0"\n',
            "notes.txt": 'os.getenv("PRIMUS_F")\n',
        },
    )
    everything = scan([tmp_path], root=tmp_path)
    assert [k.name for k in everything.knobs] == ["OTHER_B", "PRIMUS_A", "PRIMUS_C", "PRIMUS_D"]
    narrowed = scan(
        [tmp_path / "pkg"],
        Settings(match=("PRIMUS_*",), exclude=("_triton_v1", "pkg/gen")),
        root=tmp_path,
    )
    assert [k.name for k in narrowed.knobs] == ["PRIMUS_A"]
    assert narrowed.files_scanned == 1


def test_paths_are_relative_to_root_and_sorted(tmp_path: Path) -> None:
    write_tree(tmp_path, {"z/b.py": GOOD, "a/c.py": GOOD})
    (knob,) = scan([tmp_path / "z", tmp_path / "a"], root=tmp_path).knobs
    assert [s.path for s in knob.sites] == ["a/c.py", "z/b.py"]


def test_presence_sites_alone_are_no_conflict_but_mixed_with_values_are(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.py": 'import os\n\nA = "PRIMUS_P" in os.environ\nB = "PRIMUS_P" in os.environ\n',
            "b.py": 'import os\n\nC = "PRIMUS_Q" in os.environ\n'
            'D = os.environ.get("PRIMUS_Q", "0") == "1"\n',
        },
    )
    p, q = scan([tmp_path], root=tmp_path).knobs
    assert (p.conflict, p.off_value) == (False, None)
    assert q.conflict_reason == "only unsetting it turns off b.py:3, while a value turns off b.py:4"


def test_exclude_follows_gitignore_rules() -> None:
    path = "pkg/attn/_gluon_v2/kernel.py"
    assert excluded(path, ["*gluon*/"])
    assert not excluded("pkg/attn/v4_csa_attention_gluon.py", ["*gluon*/"])
    assert excluded("pkg/attn/v4_csa_attention_gluon.py", ["*gluon*"])
    assert excluded(path, ["pkg/attn"])
    assert excluded(path, ["./pkg/*/_gluon_v2"])
    assert not excluded(path, ["attn/_gluon_v2"])
    assert not excluded(path, [""])
