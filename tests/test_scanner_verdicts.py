"""Gate verdicts that are right on real code, or say "unknown": one small file per cause
of a wrong verdict seen on real packages, each read pinned to its line and column."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from scanner import GateKind, Polarity, ScanResult, Write, WriteKind, scan
from tests.conftest import write_tree

B, V, L, U = GateKind.BOOLEAN, GateKind.VALUE, GateKind.LAUNCH, GateKind.UNKNOWN
P = GateKind.PRESENCE
DISABLE = Polarity.DISABLE


@dataclass(frozen=True)
class Verdict:
    name: str
    line: int
    column: int
    default: str | None
    gate: GateKind
    default_on: bool | None = None
    off_value: str | None = None
    polarity: Polarity = Polarity.ENABLE
    reason: str | None = None


CAUSES = {
    "string-equality-holds-with-the-default": (
        """
        import os

        FAST = os.environ.get("X_MODE", "fast") == "fast"
        SLOW = os.environ.get("X_SPEED", "fast") != "fast"
        BACKEND = os.environ.get("X_BACKEND", "triton") != "eager"
        """,
        (
            Verdict(
                "X_BACKEND", 5, 11, "triton", B, True, "eager"
            ),  # the value the code names turns it off
            Verdict(
                "X_MODE",
                3,
                8,
                "fast",
                B,
                True,
                "0",
                reason="off value '0': any value other than 'fast' turns it off",
            ),
            Verdict("X_SPEED", 4, 8, "fast", B, False, "fast"),
        ),
    ),
    "membership-after-upper": (
        """
        import os


        def verbose():
            return os.environ.get("X_LOG_LEVEL", "INFO").upper() in ("DEBUG", "INFO")
        """,
        (
            Verdict(
                "X_LOG_LEVEL",
                5,
                12,
                "INFO",
                B,
                True,
                "0",
                reason="off value '0': any value other than 'DEBUG', 'INFO' turns it off",
            ),
        ),
    ),
    "numbers-are-values-and-ranks-launch-facts": (
        """
        import os


        def first():
            if int(os.environ.get("RANK", "0")) == 0:
                return True
            return False


        BLOCK = int(os.environ.get("X_BLOCK", "64"))
        WIDE = int(os.environ.get("X_WIDTH", "4")) > 2
        DEBUG = int(os.environ.get("X_DEBUG", "0")) == 1
        """,
        (
            Verdict("RANK", 5, 12, "0", L),
            Verdict("X_BLOCK", 10, 13, "64", V),
            Verdict("X_DEBUG", 12, 13, "0", B, False, "0"),  # compared with 1: a switch
            Verdict("X_WIDTH", 11, 12, "4", V),
        ),
    ),
    "defaults-in-literals-untaken-branches-and-per-site": (
        """
        import os

        CONFIG = {"ws": os.environ.get("X_WS", "1")}


        def pick(dtype="bf16"):
            if dtype == "fp8":
                return os.getenv("X_FP8_PATH", "0") == "1"
            return False


        def stages():
            first = int(os.environ.get("X_STAGES", "2"))
            second = int(os.environ.get("X_STAGES", "3"))
            return first + second
        """,
        (
            Verdict("X_FP8_PATH", 8, 16, "0", B, False, "0"),
            Verdict("X_STAGES", 13, 17, "2", V),
            Verdict("X_STAGES", 14, 18, "3", V),
            Verdict("X_WS", 3, 17, "1", V),
        ),
    ),
    "disable-style-knobs": (
        """
        import os


        def kernel():
            if os.environ.get("X_DISABLE_FUSED", "0") == "1":
                return "eager"
            return "fused"


        skip_fusion = os.environ.get("X_FUSION_MODE", "0") == "1"
        """,
        (
            Verdict("X_DISABLE_FUSED", 5, 8, "0", B, False, "0", DISABLE),
            Verdict("X_FUSION_MODE", 10, 15, "0", B, False, "0", DISABLE),
        ),
    ),
    "a-module-level-read-used-later": (
        """
        import os

        _X = os.environ.get("X_LATER", "1")


        def fused():
            if _X != "0":
                return 1
            return 2
        """,
        (Verdict("X_LATER", 3, 6, "1", B, True, "0"),),
    ),
    "a-presence-test-guarding-a-value": (
        """
        import os


        def dump_path():
            if "X_DUMP" in os.environ:
                return os.environ["X_DUMP"]
            return None


        def backend():
            selected = os.environ.get("X_SELECTED", None)
            if selected:
                return selected.upper()
            return "default"
        """,
        (
            Verdict("X_DUMP", 5, 8, None, V),
            Verdict("X_DUMP", 6, 16, None, V),
            Verdict("X_SELECTED", 11, 16, None, V),
        ),
    ),
    "a-dispatch-over-names-is-a-value": (
        """
        import os


        def partial_dtype():
            env_dtype = os.getenv("X_DTYPE", "")
            if env_dtype == "bf16":
                return 1
            elif env_dtype == "fp16":
                return 2
            return 3
        """,
        (Verdict("X_DTYPE", 5, 17, "", V),),
    ),
    "a-tri-state-leaves-unset-to-the-code": (
        """
        import os

        USE_TD = {"1": True, "0": False}.get(os.getenv("X_USE_TD", "").strip())
        """,
        (
            Verdict(
                "X_USE_TD",
                3,
                38,
                "",
                B,
                None,
                "0",
                reason="unset, the code decides (the value is None)",
            ),
        ),
    ),
    "a-number-a-test-selects-is-a-switch": (
        """
        import os


        def scaled(x):
            scale = 2.0 if os.getenv("X_SCALE", "1") != "0" else 1.0
            return x * scale


        def block():
            return 128 if os.environ.get("X_BIG", "0") == "1" else 64


        def stages():
            if os.environ.get("X_DEEP", "0") == "1":
                return 4
            return 2


        FACTOR = 2.0 if os.getenv("X_FACTOR", "1") != "0" else 1.0


        def weighted(x):
            return x * FACTOR
        """,
        (
            Verdict("X_BIG", 10, 19, "0", B, False, "0"),
            Verdict("X_DEEP", 14, 8, "0", B, False, "0"),
            Verdict("X_FACTOR", 19, 17, "1", B, True, "0"),
            Verdict("X_SCALE", 5, 20, "1", B, True, "0"),
        ),
    ),
    "presence-tests-joined-by-and-or-or-are-judged-alike": (
        """
        import os


        def check():
            if "X_A" not in os.environ or "X_B" not in os.environ:
                raise RuntimeError("set X_A and X_B")
            return 1


        def fused():
            if "X_C" in os.environ and "X_D" in os.environ:
                return "fused"
            return "eager"
        """,
        (
            Verdict("X_A", 5, 8, None, P, False),
            Verdict("X_B", 5, 35, None, P, False),
            Verdict("X_C", 11, 8, None, P, False),
            Verdict("X_D", 11, 32, None, P, False),
        ),
    ),
    "a-stored-path-tested-for-none-and-used-is-a-value": (
        """
        import os
        import subprocess

        TOOL = os.environ.get("X_TOOL_PATH")


        def run(args):
            assert TOOL is not None
            subprocess.run([TOOL, *args], check=True)


        class Runner:
            def __init__(self):
                self.tool = os.environ.get("X_RUNNER_TOOL")

            def run(self):
                if self.tool is None:
                    raise RuntimeError("set X_RUNNER_TOOL")
                subprocess.run([self.tool], check=True)
        """,
        (
            Verdict("X_RUNNER_TOOL", 14, 21, None, V),
            Verdict("X_TOOL_PATH", 4, 8, None, V),
        ),
    ),
    "an-index-compared-with-zero-is-a-value": (
        """
        import os


        def is_main():
            return int(os.environ.get("X_RANK", "0")) == 0


        def log(message):
            device = int(os.getenv("X_DEVICE_ID", "0"))
            if device == 0:
                print(message)


        def enabled():
            return int(os.getenv("X_ENABLE", "0")) == 1


        USE_FUSED = bool(int(os.environ.get("USE_FUSED", "1")))
        """,
        (
            Verdict("USE_FUSED", 18, 22, "1", B, True, "0"),
            Verdict("X_DEVICE_ID", 9, 18, "0", V),
            Verdict("X_ENABLE", 15, 16, "0", B, False, "0"),
            Verdict("X_RANK", 5, 16, "0", V),
        ),
    ),
    # Transformer Engine 2.9.0 pytorch/attention/dot_product_attention/utils.py:399-409: the
    # int is copied to two locals and every test of them has another operand that cannot be
    # known (`if not use_flash_attention_2 and FlashAttentionUtils.is_installed:` :405); the
    # side of `and` the value decides is the switch, as the plain `if not use_fused:` (:409).
    "int-tested-beside-an-unknown-operand": (
        """
        import os


        def backend(utils, deterministic):
            use_flash = int(os.getenv("X_FLASH", "1"))
            use_flash_2 = use_flash
            use_fused = int(os.getenv("X_FUSED", "1"))
            if not use_flash_2 and utils.is_installed:
                print("flash off")
            if not use_fused:
                print("fused off")
            if use_flash_2 and deterministic:
                use_flash_2 = utils.v2_4_1_plus
            use_flash_2 = use_flash and use_flash_2
            return use_flash_2, use_fused
        """,
        (
            Verdict("X_FLASH", 5, 21, "1", B, True, "0"),
            Verdict("X_FUSED", 7, 21, "1", B, True, "0"),
        ),
    ),
    # Transformer Engine 2.9.0 pytorch/quantization.py:238, :265, :493-515: the read sits in a
    # loop over a class's buffer that starts (and is reset) as `{}` and is filled at run time.
    "read-in-a-loop-over-a-buffer-that-starts-empty": (
        """
        import os


        class State:
            buffers = {}

            @classmethod
            def reset(cls):
                cls.buffers = {}

            @classmethod
            def update(cls, forward=True):
                for key, amax in cls.buffers.items():
                    if key != forward:
                        continue
                    unfused = bool(int(os.getenv("X_UNFUSED_UPDATE", "0"))) or callable(amax)
                    if not unfused:
                        amax.fused_update()
                    else:
                        amax.copy_(amax.max())
        """,
        (Verdict("X_UNFUSED_UPDATE", 16, 32, "0", B, False, "0"),),
    ),
    "undecided-is-unknown-with-its-reason": (
        """
        import os

        from settings_lib import str2bool


        def fused():
            if str2bool(os.environ.get("X_OPAQUE", "1")):
                return 1
            return 2
        """,
        (
            Verdict(
                "X_OPAQUE",
                7,
                17,
                "1",
                U,
                reason="it decides a branch through str2bool(), which is not followed",
            ),
        ),
    ),
}


@pytest.mark.parametrize(("source", "expected"), CAUSES.values(), ids=CAUSES.keys())
def test_verdict(source: str, expected: tuple[Verdict, ...], tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": source})
    result = scan([tmp_path], root=tmp_path)
    assert (result.errors, result.dynamic) == ((), ())
    found = [
        Verdict(
            s.name,
            s.line,
            s.column,
            s.default,
            s.gate.kind,
            s.default_on,
            s.gate.off_value,
            s.polarity,
            s.reason,
        )
        for k in result.knobs
        for s in k.sites
    ]
    assert found == list(expected)


DEFAULTS = {
    "a-membership-test-in-a-function": (
        """
        import os


        def setup(threads):
            if "OMP_NUM_THREADS" not in os.environ:
                os.environ["OMP_NUM_THREADS"] = str(threads)
        """,
        Verdict("OMP_NUM_THREADS", 5, 8, None, V),
        (6, 9, "setup", None),
    ),
    "a-membership-test-at-module-level-with-a-message": (
        """
        import os

        if "X_THREADS" not in os.environ:
            print("X_THREADS is not set: using 4")
            os.environ["X_THREADS"] = "4"
        """,
        Verdict("X_THREADS", 3, 4, None, V),
        (5, 5, "<module>", "4"),
    ),
    "a-none-test-of-the-value": (
        """
        import os


        def quiet():
            if os.environ.get("TOKENIZERS_PARALLELISM") is None:
                os.environ["TOKENIZERS_PARALLELISM"] = "false"
        """,
        Verdict("TOKENIZERS_PARALLELISM", 5, 8, None, V),
        (6, 9, "quiet", "false"),
    ),
    "a-local-holding-the-read": (
        """
        import os

        FALLBACK = "http://localhost:9000"


        def endpoint():
            given = os.getenv("X_ENDPOINT")
            if given is None and FALLBACK:
                os.environ["X_ENDPOINT"] = FALLBACK
        """,
        Verdict("X_ENDPOINT", 7, 13, None, V),
        (9, 9, "endpoint", "http://localhost:9000"),
    ),
}


def _one_value_read(tmp_path: Path, source: str, read: Verdict) -> ScanResult:
    """Scan ``source`` as m.py: one knob, read once, as ``read`` with no switch state."""
    write_tree(tmp_path, {"m.py": source})
    result = scan([tmp_path], root=tmp_path)
    assert (result.errors, result.dynamic) == ((), ())
    (knob,) = result.knobs
    (site,) = knob.sites
    found = Verdict(site.name, site.line, site.column, site.default, site.gate.kind)
    assert (found, site.default_on, site.gate.off_value) == (read, None, None)
    return result


@pytest.mark.parametrize(("source", "read", "written"), DEFAULTS.values(), ids=DEFAULTS.keys())
def test_a_test_that_only_sets_a_default_is_a_value_read_and_a_write(
    source: str, read: Verdict, written: tuple[int, int, str, str | None], tmp_path: Path
) -> None:
    # The variable is read where the code uses it, not here: the test decides nothing.
    result = _one_value_read(tmp_path, source, read)
    line, column, function, value = written
    assert result.writes == (
        Write(
            name=read.name,
            path="m.py",
            line=line,
            column=column,
            kind=WriteKind.SET,
            function=function,
            value=value,
        ),
    )


CLEANUPS = {
    "del-in-a-teardown": (
        """
        import os


        class T:
            def tearDown(self):
                if "CUBLAS_WORKSPACE_CONFIG" in os.environ:
                    del os.environ["CUBLAS_WORKSPACE_CONFIG"]
        """,
        Verdict("CUBLAS_WORKSPACE_CONFIG", 6, 12, None, V),
        (7, 17, WriteKind.DELETE),
    ),
    "pop-at-module-level": (
        """
        import os

        if os.environ.get("X_TMP") is not None:
            os.environ.pop("X_TMP")
        """,
        Verdict("X_TMP", 3, 4, None, V),
        (4, 5, WriteKind.POP),
    ),
    "unsetenv-in-a-function": (
        """
        import os


        def clean():
            if "X_OLD" in os.environ:
                os.unsetenv("X_OLD")
        """,
        Verdict("X_OLD", 5, 8, None, V),
        (6, 9, WriteKind.UNSETENV),
    ),
}


@pytest.mark.parametrize(("source", "read", "removed"), CLEANUPS.values(), ids=CLEANUPS.keys())
def test_a_test_that_only_removes_the_variable_is_a_clean_up_not_a_switch(
    source: str, read: Verdict, removed: tuple[int, int, WriteKind], tmp_path: Path
) -> None:
    # Setting it to "1" turns nothing on: the branch only removes it.
    result = _one_value_read(tmp_path, source, read)
    assert [(w.name, w.line, w.column, w.kind) for w in result.writes] == [(read.name, *removed)]


def test_an_exhausted_step_budget_is_unknown_not_a_value(tmp_path: Path) -> None:
    # 40,000 iterations over known data run before the read: more than the budget.
    items = ", ".join(str(i) for i in range(200))
    source = (
        f"import os\n\nITEMS = ({items})\n\n\ndef gate():\n"
        "    for i in ITEMS:\n        for j in ITEMS:\n            y = i + j\n"
        '    return os.environ.get("X_LONG", "1") != "0"\n'
    )
    write_tree(tmp_path, {"m.py": source})
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert (knob.kind, knob.default_on) == (GateKind.UNKNOWN, None)
    reason = "the code that uses it is too long to follow (step budget)"
    assert knob.sites[0].reason == reason
    assert knob.reason == f"{reason} (m.py:10)"
