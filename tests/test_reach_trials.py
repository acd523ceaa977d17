"""A branch that tries code and turns its failure into an error is a check: a value that
skips it turns no kernel off (scanner.reach.trials).

ModelTC/lightllm fc72ffab lightllm/common/basemodel/basemodel.py:641-692
(``_check_max_len_infer``: unless DISABLE_CHECK_MAX_LEN_INFER is set, one dummy prefill of
the largest batch in a ``try`` whose handler raises with advice; the result is dropped and
the function returns nothing), :237-241 (``forward`` runs ``_prefill`` or ``_decode``), the
model's Triton kernels beneath.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

MODEL = (
    "import logging\nimport os\n\nimport torch\nimport triton\nimport triton.language as tl\n\n"
    "logger = logging.getLogger(__name__)\n\n\n"
    "@triton.jit\ndef _context_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
    "class BaseModel:\n"
    "    def forward(self, x):\n"
    "        _context_kernel[(1,)](x, 1)\n"
    "        return x\n\n"
    "    def _check_max_len_infer(self):\n"
    '        disable_check = os.getenv("X_DISABLE_CHECK_MAX_LEN", None) is not None\n'
    "        if disable_check:\n"
    '            logger.info("disable_check_max_len_infer is true")\n'
    "            return\n"
    "        try:\n"
    "            dummy = torch.ones(self.batch_max_tokens)\n"
    "            out = self.forward(dummy)\n"
    "            del out\n"
    "        except (RuntimeError, torch.OutOfMemoryError) as e:\n"
    "            logger.exception(str(e))\n"
    '            raise Exception("check max len infer fail")\n'
    "        return\n"
)
TRIAL = {"pkg/__init__.py": "", "pkg/model.py": MODEL}
# The same code where the result is what the function gives: a kernel path the value leaves.
RETURNED = {
    **TRIAL,
    "pkg/model.py": MODEL.replace("            del out\n", "            return out\n"),
}

CHAIN = (
    "unset, it runs the branch of `not disable_check` at pkg/model.py:23, which reaches calls "
    "BaseModel.forward (pkg/model.py:17) -> calls _context_kernel (pkg/model.py:12) -> "
    "@triton.jit _context_kernel at pkg/model.py:12; X_DISABLE_CHECK_MAX_LEN='1' "
)


@pytest.mark.parametrize(
    ("files", "role", "reason"),
    [
        (
            TRIAL,
            Role.SAFETY,
            CHAIN + "skips that branch, a trial of that code whose failure it turns into an "
            "error (raise at pkg/model.py:32) and whose result it drops: a check, not a kernel "
            "choice",
        ),
        (
            RETURNED,
            Role.KERNEL,
            CHAIN + "leaves that branch, and what runs instead reaches no such kernel",
        ),
    ],
    ids=["a-trial-whose-result-is-dropped", "a-result-returned"],
)
def test_a_skipped_trial_is_a_check(
    tmp_path: Path, files: dict[str, str], role: Role, reason: str
) -> None:
    knob = scanned_knob(tmp_path, files, "X_DISABLE_CHECK_MAX_LEN")
    assert role_facts(knob) == (role, Polarity.DISABLE, None, reason)
