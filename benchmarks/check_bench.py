"""What `knobs check` costs a project whose registry declares trainer-config keys.

    python benchmarks/check_bench.py [--repeat N]

Writes a small project (one gate, a `bitwise` profile) twice: once with config
keys declared `backend: megatron` and `backend: torchtitan`, once without, and
runs the real `knobs check` on each in a subprocess, with a fresh cache folder
($KNOBS_CACHE_DIR): the first run (cold: nothing cached) and the best of N
later runs (warm: what a pre-commit hook pays on every commit). With
megatron-core and torchtitan installed, the keys are held against their config
dataclasses, which needs their field lists: importing them imports torch.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

GATE = 'import os\n\nFUSED = os.environ.get("BENCH_FUSED_TRITON", "1") != "0"\n'

REGISTRY = """\
version: 1
scan:
  paths: [src]
  policy: all
knobs:
  BENCH_FUSED_TRITON:
    default: "1"
    default_on: true
    triage: untriaged
{config}profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    select:
      - default_on: true
        triage_not: [reproducible, exempt]
        set: "off"
"""

CONFIG = """\
config:
  deterministic_mode:
    backend: megatron
    description: Megatron's deterministic mode.
  cross_entropy_loss_fusion:
    backend: megatron
    description: The fused cross-entropy loss.
  debug.seed:
    backend: torchtitan
    description: TorchTitan's seed.
"""


def project(root: Path, *, with_config: bool) -> Path:
    """The project, written under ``root``."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "gates.py").write_text(GATE, encoding="utf-8")
    text = REGISTRY.format(config=CONFIG if with_config else "")
    (root / "registry.yaml").write_text(text, encoding="utf-8")
    return root


def check_once(root: Path, cache: Path) -> float:
    """Seconds one `knobs check` takes in ``root``; fails loudly when the check does."""
    environment = {**os.environ, "KNOBS_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "knobregistry", "check"],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"knobs check failed in {root}:\n{done.stdout}{done.stderr}")
    return elapsed


def measure(root: Path, repeat: int) -> tuple[float, float]:
    """The cold run and the best of ``repeat`` warm runs, with a cache folder of their own."""
    cache = Path(tempfile.mkdtemp(prefix="knobs-check-bench-"))
    try:
        cold = check_once(root, cache)
        warm = min(check_once(root, cache) for _ in range(repeat))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return cold, warm


def installed(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm runs (best is shown)")
    args = parser.parse_args()
    print(f"megatron-core {installed('megatron-core')}, torchtitan {installed('torchtitan')}")
    with tempfile.TemporaryDirectory(prefix="knobs-check-bench-") as folder:
        for label, with_config in (("with config keys", True), ("without", False)):
            root = project(Path(folder) / label.replace(" ", "-"), with_config=with_config)
            cold, warm = measure(root, args.repeat)
            print(
                f"knobs check {label}: cold {cold:.2f} s, warm {warm:.2f} s (best of {args.repeat})"
            )
    print(textwrap.fill("cold: empty cache folder; warm: what each later run pays.", width=88))


if __name__ == "__main__":
    main()
