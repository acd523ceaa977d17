"""What must not count as a read, what is recorded as a write, and what stays dynamic."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import DynamicRead, Write, WriteKind, scan
from tests.conftest import write_tree

NOT_READS = {
    "docstring": '''
        import os


        def f():
            """Set os.environ.get("PRIMUS_X", "1") to "0" to disable."""
            return 1
        ''',
    "comment": """
        import os

        # os.environ.get("PRIMUS_X", "1") != "0"
        X = 1
        """,
    "plain-string": """
        import os

        NAME = "PRIMUS_X"
        MESSAGE = "export PRIMUS_X=0 to disable"
        """,
    "dict-key-with-get": """
        import os

        config = {"PRIMUS_X": "1"}
        USE = config.get("PRIMUS_X", "1") != "0"
        """,
    "attribute-named-environ": """
        import os


        class Job:
            def enabled(self):
                return self.environ.get("PRIMUS_X", "1") != "0"
        """,
    "parameter-shadows-os": """
        import os


        def enabled(os):
            return os.environ.get("PRIMUS_X", "1") != "0"
        """,
    "os-path-is-not-environ": """
        import os

        P = os.path.join("PRIMUS_X", "1")
        """,
}


@pytest.mark.parametrize("source", NOT_READS.values(), ids=NOT_READS.keys())
def test_not_a_read(source: str, tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": source})
    result = scan([tmp_path], root=tmp_path)
    assert result.knobs == ()
    assert result.dynamic == ()
    assert result.writes == ()


WRITES = {
    "subscript-assign": ('os.environ["PRIMUS_X"] = "1"', WriteKind.SET, 1),
    "setdefault": ('os.environ.setdefault("PRIMUS_X", "1")', WriteKind.SETDEFAULT, 1),
    "pop": ('os.environ.pop("PRIMUS_X", None)', WriteKind.POP, 1),
    "del": ('del os.environ["PRIMUS_X"]', WriteKind.DELETE, 5),
    "putenv": ('os.putenv("PRIMUS_X", "1")', WriteKind.PUTENV, 1),
    "augmented": ('os.environ["PRIMUS_X"] += ":extra"', WriteKind.SET, 1),
}


def dynamic_read(line: int, column: int, expression: str, function: str) -> DynamicRead:
    return DynamicRead(
        path="m.py", line=line, column=column, expression=expression, function=function
    )


@pytest.mark.parametrize(("statement", "kind", "column"), WRITES.values(), ids=WRITES.keys())
def test_write_is_recorded_and_not_a_read(
    statement: str, kind: WriteKind, column: int, tmp_path: Path
) -> None:
    write_tree(tmp_path, {"m.py": f"import os\n\n{statement}\n"})
    result = scan([tmp_path], root=tmp_path)
    assert result.knobs == ()
    assert result.writes == (
        Write(name="PRIMUS_X", path="m.py", line=3, column=column, kind=kind, function="<module>"),
    )


def test_unresolvable_names_are_dynamic_with_their_source(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            def flags(kinds):
                for kind in kinds:
                    yield os.environ.get(f"PRIMUS_{kind}_TRITON", "1") != "0"


            def pick(name):
                def inner():
                    return os.getenv(name)

                return inner
            """
        },
    )
    result = scan([tmp_path], root=tmp_path)
    assert result.knobs == ()
    assert result.dynamic == (
        dynamic_read(6, 15, 'os.environ.get(f"PRIMUS_{kind}_TRITON", "1")', "flags"),
        dynamic_read(11, 16, "os.getenv(name)", "pick.<locals>.inner"),
    )


def test_wrapper_called_with_unresolvable_name_is_dynamic(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            def flag(name):
                return os.environ.get(name, "0") == "1"


            def all_flags(names):
                return [flag(n) for n in names]


            KNOWN = flag("PRIMUS_KNOWN")
            """
        },
    )
    result = scan([tmp_path], root=tmp_path)
    assert [k.name for k in result.knobs] == ["PRIMUS_KNOWN"]
    assert result.dynamic == (dynamic_read(9, 13, "flag(n)", "all_flags"),)


def test_a_wrapper_never_called_reports_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "import os\n\n\ndef flag(name):\n    return os.getenv(name)\n"})
    result = scan([tmp_path], root=tmp_path)
    assert (result.knobs, result.dynamic) == ((), ())
    assert [w.qualname for w in result.wrappers] == ["m.flag"]


def test_a_read_in_a_dunder_method_is_dynamic_not_dropped(tmp_path: Path) -> None:
    # __init__ is never called by its name, so it is no wrapper: its read stays visible.
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            class Flag:
                def __init__(self, name):
                    self.on = os.environ.get(name, "0") == "1"
            """
        },
    )
    result = scan([tmp_path], root=tmp_path)
    assert result.wrappers == ()
    assert result.dynamic == (dynamic_read(6, 19, 'os.environ.get(name, "0")', "Flag.__init__"),)
