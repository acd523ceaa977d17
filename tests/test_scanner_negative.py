"""What must not count as a read, what is recorded as a write, and what stays dynamic."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scanner import DynamicRead, GateKind, ScanResult, Write, WriteKind, scan
from tests.conftest import write_tree

# Each case holds a comment naming os.environ, so that the file passes the byte
# prefilter and is really analysed (the test checks it was parsed).
FORCE = "# reads nothing from os.environ\n"


def parsed_scan(root: Path) -> ScanResult:
    """Scan ``root``, and hold that every Python file in it was parsed and analysed: a
    negative case the byte prefilter skips would pass for the wrong reason."""
    result = scan([root], root=root)
    assert result.stats.files_parsed == len(list(root.rglob("*.py")))
    return result


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
    "a-method-named-getenv": """
        class Settings:
            def getenv(self, name):
                return name

        S = Settings().getenv("PRIMUS_X")
        """,
    "a-local-function-named-getenv": """
        def getenv(name, default=None):
            return default

        X = getenv("PRIMUS_X", "1")
        """,
    "a-copy-written-for-a-child": """
        import os
        import subprocess

        env = os.environ.copy()
        env["PRIMUS_X"] = "1"
        subprocess.run(["true"], env=env)
        """,
}


@pytest.mark.parametrize("source", NOT_READS.values(), ids=NOT_READS.keys())
def test_not_a_read(source: str, tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": FORCE + textwrap.dedent(source).lstrip("\n")})
    result = parsed_scan(tmp_path)
    assert result.knobs == ()
    assert result.dynamic == ()
    assert result.writes == ()


WRITES = {
    "subscript-assign": ('os.environ["PRIMUS_X"] = "1"', WriteKind.SET, 1, "1"),
    "setdefault": ('os.environ.setdefault("PRIMUS_X", "1")', WriteKind.SETDEFAULT, 1, "1"),
    "pop": ('os.environ.pop("PRIMUS_X", None)', WriteKind.POP, 1, None),
    "del": ('del os.environ["PRIMUS_X"]', WriteKind.DELETE, 5, None),
    "putenv": ('os.putenv("PRIMUS_X", "1")', WriteKind.PUTENV, 1, "1"),
    "augmented": ('os.environ["PRIMUS_X"] += ":extra"', WriteKind.SET, 1, None),
    "update-by-keyword": ('os.environ.update(PRIMUS_X="1")', WriteKind.SET, 1, "1"),
    "update-by-dict": ('os.environ.update({"PRIMUS_X": "1"})', WriteKind.SET, 1, "1"),
}


def write(
    line: int, column: int, kind: WriteKind, *, value: str | None, via: str | None = None
) -> Write:
    return Write(
        name="PRIMUS_X",
        path="m.py",
        line=line,
        column=column,
        kind=kind,
        function="<module>",
        value=value,
        via=via,
    )


@pytest.mark.parametrize(
    ("statement", "kind", "column", "value"), WRITES.values(), ids=WRITES.keys()
)
def test_write_is_recorded_and_not_a_read(
    statement: str, kind: WriteKind, column: int, value: str | None, tmp_path: Path
) -> None:
    write_tree(tmp_path, {"m.py": f"import os\n\n{statement}\n"})
    result = parsed_scan(tmp_path)
    assert result.knobs == ()
    assert result.writes == (write(3, column, kind, value=value),)


def test_an_update_writes_each_name_it_gives_and_one_unknown_for_a_mapping(
    tmp_path: Path,
) -> None:
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            def launch(port, env):
                os.environ.update({"PRIMUS_X": "1"}, MASTER_PORT=str(port))
                os.environ.update(env)
            """
        },
    )
    result = parsed_scan(tmp_path)
    assert (result.knobs, result.dynamic) == ((), ())
    found = [(w.name, w.line, w.column, w.value, w.function) for w in result.writes]
    assert found == [  # in source order at one position
        ("PRIMUS_X", 5, 5, "1", "launch"),
        ("MASTER_PORT", 5, 5, None, "launch"),
        (None, 6, 5, None, "launch"),
    ]


def test_a_setter_is_a_write_at_its_calls_not_a_read(tmp_path: Path) -> None:
    # The membership test only guards the unset: part of the write, not a read.
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            def setenv(key, value):
                if value is not None:
                    os.environ[key] = value
                elif key in os.environ:
                    del os.environ[key]


            setenv("PRIMUS_X", "1")
            """
        },
    )
    result = parsed_scan(tmp_path)
    assert (result.knobs, result.dynamic) == ((), ())
    assert result.writes == (write(11, 1, WriteKind.SET, value="1", via="m.setenv"),)
    assert result.wrappers == ()


# Setters as real code writes them, each defined in pkg/envutil.py and called once in
# pkg/use.py: (the setter's module, the call, the call's line and column, its function, the
# value written, the setter). A setter that reads the variable only to restore it or to log
# it, and writes it whatever it held, is still only a setter: its call writes.
SETTERS = {
    "a-context-manager-that-restores-the-old-value": (
        """
        import contextlib
        import os


        @contextlib.contextmanager
        def patched_env(name, value):
            old = os.environ.get(name)
            os.environ[name] = value
            try:
                yield
            finally:
                if old is None:
                    del os.environ[name]
                else:
                    os.environ[name] = old
        """,
        """
        from pkg.envutil import patched_env

        with patched_env("PRIMUS_X", "1"):
            print("patched")
        """,
        (3, 6, "<module>", "1", "pkg.envutil.patched_env"),
    ),
    "a-setter-that-logs-the-old-value": (
        """
        import logging
        import os

        logger = logging.getLogger(__name__)


        def set_env(name, value):
            logger.info("%s: %s -> %s", name, os.environ.get(name), value)
            os.environ[name] = value
        """,
        """
        from pkg import envutil


        def configure():
            envutil.set_env("PRIMUS_X", "0")
        """,
        (5, 5, "configure", "0", "pkg.envutil.set_env"),
    ),
    "a-plain-setter-imported-from-another-module": (
        """
        import os


        def setenv(name, value):
            os.environ[name] = value
        """,
        """
        from pkg.envutil import setenv

        setenv("PRIMUS_X", "1")
        """,
        (3, 1, "<module>", "1", "pkg.envutil.setenv"),
    ),
    "a-method-that-saves-the-old-value-called-through-self": (
        """
        import os


        class EnvPatch:
            def __init__(self):
                self.saved = []

            def setenv(self, name, value):
                self.saved.append((name, os.environ.get(name)))
                os.environ[name] = value

            def fused_off(self):
                self.setenv("PRIMUS_X", "0")
        """,
        """
        from pkg.envutil import EnvPatch

        EnvPatch().fused_off()
        """,
        None,
    ),
}


@pytest.mark.parametrize(("setter", "caller", "call"), SETTERS.values(), ids=SETTERS.keys())
def test_a_setter_call_is_a_write_not_a_read(
    setter: str,
    caller: str,
    call: tuple[int, int, str, str, str] | None,
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/envutil.py": setter, "pkg/use.py": caller})
    result = scan([tmp_path], root=tmp_path)
    assert (result.errors, result.knobs, result.dynamic, result.wrappers) == ((), (), (), ())
    if call is None:  # the call is in the setter's own module: EnvPatch.fused_off
        call = (13, 9, "EnvPatch.fused_off", "0", "pkg.envutil.EnvPatch.setenv")
        path = "pkg/envutil.py"
    else:
        path = "pkg/use.py"
    line, column, function, value, via = call
    assert result.writes == (
        Write(
            name="PRIMUS_X",
            path=path,
            line=line,
            column=column,
            kind=WriteKind.SET,
            function=function,
            value=value,
            via=via,
        ),
    )


def test_a_setter_that_leaves_a_value_already_set_also_reads_it(tmp_path: Path) -> None:
    # Whether it writes depends on the variable: a read (a value, as the same test written
    # out at the call would be) and a write, as DeepSpeed's update_wa_env_var.
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            def set_if_unset(name, value):
                if name not in os.environ:
                    os.environ[name] = value


            set_if_unset("PRIMUS_X", "1")
            """
        },
    )
    result = parsed_scan(tmp_path)
    (knob,) = result.knobs
    (site,) = knob.sites
    assert (site.name, site.line, site.column, site.via) == ("PRIMUS_X", 9, 1, "m.set_if_unset")
    assert (site.gate.kind, site.default_on) == (GateKind.VALUE, None)
    assert result.writes == (write(9, 1, WriteKind.SET, value="1", via="m.set_if_unset"),)
    assert [w.qualname for w in result.wrappers] == ["m.set_if_unset"]


def test_a_setter_that_answers_with_the_value_is_also_a_read(tmp_path: Path) -> None:
    # get_or_set returns what it leaves in the environment: its callers decide with it.
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            def get_or_set(name, default):
                if name not in os.environ:
                    os.environ[name] = default
                return os.environ[name]


            if get_or_set("PRIMUS_X", "fast") == "fast":
                print("fast")
            """
        },
    )
    result = parsed_scan(tmp_path)
    (knob,) = result.knobs
    (site,) = knob.sites
    assert (site.name, site.line, site.column, site.via) == ("PRIMUS_X", 10, 4, "m.get_or_set")
    assert site.gate.kind is GateKind.BOOLEAN
    assert result.writes == (write(10, 4, WriteKind.SET, value="fast", via="m.get_or_set"),)
    assert [w.qualname for w in result.wrappers] == ["m.get_or_set"]


def test_self_and_cls_are_never_the_name_parameter(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            class Job:
                def mode(self):
                    return os.getenv(self.key)

                @classmethod
                def level(cls):
                    return os.getenv(cls.key, "0") == "1"
            """
        },
    )
    result = parsed_scan(tmp_path)
    assert result.wrappers == ()
    reason = "the name is an attribute whose value is not known statically"
    assert result.dynamic == (
        dynamic_read(6, 16, "os.getenv(self.key)", "Job.mode", reason),
        dynamic_read(10, 16, 'os.getenv(cls.key, "0")', "Job.level", reason),
    )


def dynamic_read(
    line: int, column: int, expression: str, function: str, reason: str, via: str | None = None
) -> DynamicRead:
    return DynamicRead(
        path="m.py",
        line=line,
        column=column,
        expression=expression,
        function=function,
        reason=reason,
        via=via,
    )


def test_a_wrapper_building_the_name_that_nobody_calls_is_dynamic_with_its_pattern(
    tmp_path: Path,
) -> None:
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
    result = parsed_scan(tmp_path)
    assert result.knobs == ()
    reason = (
        "the name is built from the parameter 'kinds', and no call in the tree passes a known value"
    )
    # `pick` reads the bare parameter: a helper with no caller, which names no knob.
    assert result.dynamic == (dynamic_read(6, 15, 'f"PRIMUS_{kind}_TRITON"', "flags", reason),)
    assert [w.qualname for w in result.wrappers] == ["m.flags", "m.pick"]


def test_a_loop_over_data_not_known_statically_is_dynamic(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os

            for kind in open("kinds"):
                os.environ.get(f"PRIMUS_{kind}")
            """
        },
    )
    result = parsed_scan(tmp_path)
    reason = "the name is built at run time from values not known statically"
    assert result.dynamic == (
        dynamic_read(4, 5, 'os.environ.get(f"PRIMUS_{kind}")', "<module>", reason),
    )


def test_wrapper_called_with_unresolvable_name_is_dynamic(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            def flag(name):
                return os.environ.get(name, "0") == "1"


            def all_flags():
                return [flag(n) for n in open("names")]


            KNOWN = flag("PRIMUS_KNOWN")
            """
        },
    )
    result = parsed_scan(tmp_path)
    assert [k.name for k in result.knobs] == ["PRIMUS_KNOWN"]
    reason = "the name passed to flag() is not known here"
    assert result.dynamic == (dynamic_read(9, 13, "flag(n)", "all_flags", reason, "m.flag"),)


def test_a_wrapper_never_called_reports_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "import os\n\n\ndef flag(name):\n    return os.getenv(name)\n"})
    result = parsed_scan(tmp_path)
    assert (result.knobs, result.dynamic) == ((), ())
    assert [w.qualname for w in result.wrappers] == ["m.flag"]


def test_a_constructor_reading_its_parameter_makes_a_descriptor_not_a_dynamic_read(
    tmp_path: Path,
) -> None:
    # Flag("X") is a read of X; the constructor's own read is reported at those calls.
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
    result = parsed_scan(tmp_path)
    assert (result.knobs, result.dynamic) == ((), ())
    assert [(w.qualname, w.name_param) for w in result.wrappers] == [("m.Flag", "name")]


def test_a_parameter_a_spread_argument_may_fill_is_unknown_not_its_default(
    tmp_path: Path,
) -> None:
    # `get("X", *rest)` may pass `prefix` too: the name is not "P_X" for certain.
    write_tree(
        tmp_path,
        {
            "m.py": """
            import os


            def get(name, prefix="P_", *more, suffix=""):
                return os.environ.get(prefix + name + suffix)


            REST = open("rest").read().split()
            A = get("X", *REST)
            B = get("Y", **dict.fromkeys(REST))
            C = get("Z", *REST, suffix="_ON")
            D = get("W", "Q_", *REST)
            """
        },
    )
    result = parsed_scan(tmp_path)
    reason = "the name passed to get() is not known here"
    assert [(k.name, k.sites[0].line) for k in result.knobs] == [("Q_W", 12)]
    assert result.dynamic == (
        dynamic_read(9, 5, 'get("X", *REST)', "<module>", reason, "m.get"),
        dynamic_read(10, 5, 'get("Y", **dict.fromkeys(REST))', "<module>", reason, "m.get"),
        dynamic_read(11, 5, 'get("Z", *REST, suffix="_ON")', "<module>", reason, "m.get"),
    )
