"""Variable registries of host frameworks, which a plugin reads through the host's module.

vllm-ascend, a vLLM platform plugin, tests ``envs.VLLM_BATCH_INVARIANT`` through ``import
vllm.envs as envs`` (vllm-project/vllm-ascend 182b75ea vllm_ascend/batch_invariant.py:23,
:151): the variable is read by vLLM's registry, a file outside the scanned tree, so neither
the read nor its default is in the tree. Each entry here is the host's own declaration,
copied as its source has it, with where (repository, version, file:line): the scanner reads
it as it reads that file (``scanner.reach.host_reads``). A name no entry declares is no read
the scan knows of; the scan never looks at what the scanning environment has installed, so
its result is the same wherever it runs.
"""

from __future__ import annotations

from typing import Final

# (the host's registry module, its framework, ((variable, its declaration in the registry's
# table of lambdas, where the host declares it), ...))
HOSTS: Final[tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...]] = (
    (
        "vllm.envs",
        "vLLM",
        (
            (
                "VLLM_BATCH_INVARIANT",
                'lambda: bool(int(os.getenv("VLLM_BATCH_INVARIANT", "0")))',
                "vllm-project/vllm@v0.33.0 vllm/envs.py:638",
            ),
        ),
    ),
)
