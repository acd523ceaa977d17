"""Helpers a training script that uses torch calls (torch is an optional dependency).

Nothing in the knobs CLI imports this package; a training script does:

    from knobregistry.torch import checksums_from_env
    checksums_from_env(model, optimizer)  # records only when KNOBS_CHECKSUMS is set
"""

from __future__ import annotations

from knobregistry.torch.checksums import Checksums, checksums_from_env, knobs_checksums

__all__ = ["Checksums", "checksums_from_env", "knobs_checksums"]
