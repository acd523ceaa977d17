"""Fuzz: the scanner fed mutated real files never raises and never hangs.

Real files of this repository (the example model, the scanner's own modules, a
launcher script and a YAML config written like Primus's) are mutated with a
seeded generator: bytes flipped, the file cut short, lines shuffled, brackets
and ``and`` chains inserted. The scan runs in a subprocess with a timeout (the
hang check: the subprocess is killed and the test fails), and must end with
exit 0, no traceback and no "Internal error" entry.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, write_tree

SEEDS = (18, 1818, 181818)
PER_FILE = 4  # mutants of each real file, per seed
SHELL = """#!/bin/bash
set -euo pipefail
export NCCL_ALGO=${NCCL_ALGO:-Ring}
if [[ "${PRIMUS_DETERMINISTIC:-0}" == "1" ]]; then
  echo "env.PRIMUS_HC_TRITON=0"
  export TORCH_USE_CUDA_DSA=1
fi
case "${PRIMUS_BACKEND:-triton}" in
  triton) echo fused ;;
  torch|eager) echo plain ;;
esac
[[ -n "${DEBUG_DUMP:-}" ]] && echo "${DEBUG_DUMP}"
"""
YAML = """modules:
  pre_trainer:
    overrides:
      deterministic_mode: ${PRIMUS_DETERMINISTIC:false}
      micro_batch_size: ${MBS:4}
      save: ${CHECKPOINT_DIR}
"""
SCAN = """
import json, sys
from scanner import scan
tree, cache = sys.argv[1], sys.argv[2]
runs = [scan([tree], root=tree, jobs=1, cache_dir=cache) for _ in range(2)]
internal = [e.message for r in runs for e in r.errors if e.message.startswith("Internal")]
print(json.dumps({"internal": internal, "same": runs[0] == runs[1],
                  "files": runs[0].files_scanned}))
"""


def _originals() -> dict[str, bytes]:
    files = {
        f"real/{p.name}": p.read_bytes()
        for p in sorted((REPO / "examples" / "toymodel").glob("*.py"))
    }
    for rel in ("scanner/run/work.py", "scanner/interpret/gates.py", "scanner/source/files.py"):
        files[f"real/{Path(rel).name}"] = (REPO / rel).read_bytes()
    files["real/launch.sh"] = SHELL.encode()
    files["real/config.yaml"] = YAML.encode()
    return files


def _mutate(data: bytes, rng: random.Random) -> bytes:
    choice = rng.randrange(5)
    if choice == 0:  # bytes flipped
        mutable = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            mutable[rng.randrange(len(mutable))] = rng.randrange(256)
        return bytes(mutable)
    if choice == 1:  # cut short
        return data[: rng.randrange(len(data))]
    lines = data.splitlines(keepends=True)
    if choice == 2:  # lines shuffled
        rng.shuffle(lines)
        return b"".join(lines)
    at = rng.randrange(len(lines))
    if choice == 3:  # a line repeated, indented differently
        lines.insert(at, b" " * rng.randrange(9) + lines[rng.randrange(len(lines))])
        return b"".join(lines)
    depth = rng.choice((5, 150, 400, 1500))  # nesting around the limits
    deep = b'X = os.environ.get("FUZZ", "1")' + b" and x" * depth + b"\n"
    if rng.random() < 0.5:
        deep = b"Y = " + b"(" * depth + b"os.getenv('FUZZ')" + b")" * depth + b"\n"
    lines.insert(at, deep)
    return b"".join(lines)


@pytest.mark.parametrize("seed", SEEDS)
def test_mutated_real_files_never_raise_or_hang(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    mutants: dict[str, str | bytes] = {}
    for rel, data in _originals().items():
        for n in range(PER_FILE):
            folder, name = rel.rsplit("/", 1)
            stem, dot, suffix = name.partition(".")
            mutants[f"{folder}/{stem}_{n}{dot}{suffix}"] = _mutate(data, rng)
    tree = write_tree(tmp_path / "tree", mutants)
    done = subprocess.run(
        [sys.executable, "-c", SCAN, str(tree), str(tmp_path / "cache")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,  # a hang fails here
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report == {"internal": [], "same": True, "files": len(mutants)}
