"""The checksum records' format, shared by the recorder (knobregistry.torch) and triage.

A folder holds one file per rank, ``rank-R.jsonl``: JSON lines, the first a header
``{"format": "knobs-checksums", "version": 1, "rank": R, "world_size": W, ...}``,
then one record per tensor, in the order the hooks saw them:

    {"step": 0, "pass": "backward", "module": "lm_head", "tensor": "weight.grad",
     "dtype": "float32", "shape": [64, 32], "blake2b": "<32 hex digits>"}

``blake2b`` is the 16-byte BLAKE2b digest of the tensor's dtype, shape and bytes;
``null`` with a ``why`` when the tensor could not be read (a meta or sparse tensor).
"""

from __future__ import annotations

import re

FORMAT = "knobs-checksums"
VERSION = 1
ENVIRONMENT_VARIABLE = "KNOBS_CHECKSUMS"
PASSES = ("forward", "backward")
RANK_FILE = re.compile(r"rank-(0|[1-9][0-9]{0,5})\.jsonl")


def rank_file(rank: int) -> str:
    """The name of ``rank``'s record file."""
    return f"rank-{rank}.jsonl"
