"""Adoption on the real megatron-core installed by the dev extras: `knobs init` then
`knobs check` exits 0 without editing it (benchmarks/adopt_bench.py; torch is measured by
running the benchmark itself, as it takes minutes)."""

from __future__ import annotations

import re

import pytest

from tests.processes import benchmark_lines

LINE = re.compile(
    r"megatron\.core: (\d+) knobs registered \((\d+) with sites that disagree, (\d+) "
    r"undecided\), names excluded: (\d+); init [\d.]+ s, check [\d.]+ s, warm check [\d.]+ s; "
    r"check exit 0"
)


@pytest.mark.slow
def test_init_then_check_passes_on_the_installed_megatron_core() -> None:
    first, summary = benchmark_lines("adopt_bench.py", "megatron.core")
    found = LINE.fullmatch(first)
    assert found is not None, first
    knobs, sites = int(found[1]), int(found[2])
    assert knobs > 0 and sites >= 1  # PYTORCH_CUDA_ALLOC_CONF: its sites disagree
    assert re.fullmatch(r"  (Found \d+ notes?|No problems): \d+ knobs in \d+ files .*", summary)
