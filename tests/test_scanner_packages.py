"""Small packages written in the style of five real ones, scanned end to end through the
CLI: every variable their truth files list is found, and no read is dropped.

The packages (tests/data/bench) hold the forms that hid reads in the real releases:
Triton's descriptors over a compiled ``getenv``, vLLM's closure factories in a table of
lambdas, transformers' helpers re-exported through ``__init__``, DeepSpeed's ``os`` from a
star import and imported constants, Megatron's helper nested in a method.
"""

from __future__ import annotations

import ast
import json

import pytest

from tests.conftest import REPO, run_knobs

BENCH = REPO / "tests" / "data" / "bench"
PACKAGES = {
    "triton": "triton",
    "vllm": "vllm",
    "transformers": "transformers",
    "deepspeed": "deepspeed",
    "megatron-core": "megatron",
}


def truth(package: str) -> set[str]:
    """The names the package's truth file lists; for vLLM, the keys of its table of
    lambdas (read with ``ast``) but the one derived from another variable."""
    if package == "vllm":
        source = (BENCH / "vllm/vllm/envs.py").read_text(encoding="utf-8")
        table = next(
            node.value
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.AnnAssign | ast.Assign)
            and isinstance(node.value, ast.Dict)
            and "environment_variables" in ast.unparse(node)
        )
        keys = {k.value for k in table.keys if isinstance(k, ast.Constant)}
        return {k for k in keys if isinstance(k, str)} - {"VLLM_TPU_USING_PATHWAYS"}
    path = BENCH / "truth" / f"{package}.txt"
    return {
        name
        for line in path.read_text(encoding="utf-8").splitlines()
        if (name := line.split("#", 1)[0].strip())
    }


@pytest.mark.parametrize("package", PACKAGES)
def test_every_listed_variable_is_found_through_the_cli(package: str) -> None:
    root = BENCH / package
    done = run_knobs("scan", PACKAGES[package], "--format", "json", cwd=root)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    found = {knob["name"] for knob in document["knobs"]}
    assert truth(package) <= found
    assert document["errors"] == []
    assert document["dynamic"] == []
