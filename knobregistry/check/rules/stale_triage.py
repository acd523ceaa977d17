from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.examples import example

# The stale triage's example: a kernel triaged reproducible, kept on by a bitwise profile, and
# the code its record was measured on (the digests of scanner.gated).
_HC = (
    "import os\n\nimport triton\n\n\n@triton.jit\ndef _hc_fwd_kernel(x):\n    return x * 2\n"
    '\n\ndef hc_forward(x):\n    if os.environ.get("PRIMUS_HC_TRITON", "1") != "0":\n'
    "        return _hc_fwd_kernel[(1,)](x)\n    return x * 2\n"
)


_TRIAGED = """\
version: 1
scan:
  paths: [pkg]
knobs:
  PRIMUS_HC_TRITON:
    default: "1"
    default_on: true
    role: kernel
    triage: reproducible
    evidence:
      records:
        - date: 2026-05-01
          verdict: reproducible
          sweep: alone
          profile: bitwise
          command: [python, train.py]
          code:
            pkg/hc.py:
              _hc_fwd_kernel: 579a0f53e5fc2d83
              hc_forward: 4d30a7d1f7c88515
external:
  PYTHONHASHSEED:
    description: Python's hash seed.
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    env:
      PYTHONHASHSEED: "0"
"""


_STALE = {"registry.yaml": _TRIAGED, "pkg/hc.py": _HC}


KNB009 = Rule(
    code="KNB009",
    name="StaleTriage",
    title="A knob triaged reproducible gates code that changed after its triage.",
    description=(
        "`knobs triage --record` keeps, in each record, the code the knob gates: a "
        "digest of each function its sites sit in, of those that hold the branches its "
        "value decides, and of every function and method those branches reach in the "
        "tree (the Triton kernels among them), which comments, formatting and docstrings "
        "do not change. A knob triaged `reproducible` (or kept on by a profile's verified "
        "run) whose latest record no longer matches the code was measured on other code: "
        "its verdict is stale. An error when a `bitwise` profile keeps the knob on (a "
        "waiver, `expires`, makes it a warning until then), else a warning. Reported at "
        "the first function that changed, naming each. Notes, which do not fail the "
        "check: records that keep no code (written before knobs kept it), once for all "
        "of them; and a package of the stack (torch, triton, megatron-core, ...) "
        "installed where knobs runs at another release than the record names."
    ),
    example=(
        "# registry.yaml: PRIMUS_HC_TRITON triaged reproducible, its record measured on\n"
        "#   pkg/hc.py: {_hc_fwd_kernel: 579a0f53e5fc2d83, hc_forward: 4d30a7d1f7c88515}\n"
        "@triton.jit\n"
        "def _hc_fwd_kernel(x):\n"
        "    return x * 3    # was x * 2"
    ),
    examples=example(
        _STALE,
        invalid={"pkg/hc.py": _HC.replace("return x * 2\n\n", "return x * 3\n\n")},
        valid={"pkg/hc.py": _HC.replace("    return x * 2\n", "    return x*2  # doubled\n")},
    ),
    page="checks.md",
    family=Family.TRIAGE,
    help=(
        "Triage the knob again on the code as it is now (the fix prints the command, from "
        "its latest record); the new record keeps the new code. If the change cannot "
        "affect the result, a waiver (`expires`, `owner`) lets it through until a date."
    ),
)
