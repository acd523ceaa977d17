"""The conventions every layer shares: on and off words, polarity words, launch facts,
and how a path is shown.

The scanner owns them; ``knobregistry`` imports them from here, so that a word
means the same thing to the scan, the checks and the exports.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from collections.abc import Iterable
from fnmatch import translate
from pathlib import Path
from typing import Final

# Values every read is probed with besides "unset". Pairs at one index are the
# on-like and off-like spellings of one convention.
ON_WORDS: Final = ("1", "true", "yes", "on", "True", "TRUE", "Yes", "YES", "On", "ON")
OFF_WORDS: Final = ("0", "false", "no", "off", "False", "FALSE", "No", "NO", "Off", "OFF")
EMPTY: Final = ""
PAIRS: Final = tuple(zip(ON_WORDS, OFF_WORDS, strict=True))
ON_LIKE: Final = frozenset(w.lower() for w in ON_WORDS)
OFF_LIKE: Final = frozenset({*(w.lower() for w in OFF_WORDS), EMPTY})

# Words of a knob's name (or of the variable or function it is bound to) that say
# turning it on turns a feature off: X_DISABLE_FUSION, NO_TRITON, SKIP_..., FORCE_EAGER,
# X_PINGPONG_OFF, USE_LEGACY_GG and X_FALLBACK (on, the older path replaces the new one).
DISABLE_WORDS: Final = frozenset(
    {
        "OFF",
        "LEGACY",
        "FALLBACK",
        "DISABLE",
        "DISABLED",
        "DISABLES",
        "DEACTIVATE",
        "DEACTIVATED",
        "NO",
        "SKIP",
        "BYPASS",
        "WITHOUT",
        "NOFUSE",
    }
)
NEGATIONS: Final = frozenset({"NOT", "NO", "NON", "DONT"})
DISABLE_PHRASES: Final = (("FORCE", "EAGER"), ("FORCE", "UNFUSED"), ("FORCE", "FALLBACK"))

# Variables that launchers and schedulers set: facts of the launch, never switches.
LAUNCH_FACTS: Final = (
    "RANK",
    "LOCAL_RANK",
    "GROUP_RANK",
    "ROLE_RANK",
    "NODE_RANK",
    "CROSS_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "GROUP_WORLD_SIZE",
    "ROLE_WORLD_SIZE",
    "LOCAL_SIZE",
    "CROSS_SIZE",
    "NNODES",
    "GPUS_PER_NODE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "*_VISIBLE_DEVICES",
    "SLURM_*",
    "OMPI_*",
    "PMI_*",
    "PMIX_*",
    "MV2_*",
    "TORCHELASTIC_*",
    "JSM_NAMESPACE_*",
    "MPI_LOCALRANKID",
    "MPI_LOCALNRANKS",
    "*_WORLD_SIZE",
    "*_LOCAL_RANK",
    "*_NODE_RANK",
    "PET_*",  # torchrun's own arguments, as it passes them to the elastic agent
)
# Slurm reads these from the environment of the shell that submits a job (srun's and
# sbatch's input variables); Slurm itself does not set them: a user's choices, not facts.
SLURM_INPUTS: Final = (
    "SLURM_ACCOUNT",
    "SLURM_CONSTRAINT",
    "SLURM_EXCLUSIVE",
    "SLURM_PARTITION",
    "SLURM_QOS",
    "SLURM_RESERVATION",
    "SLURM_TIMELIMIT",
)
# Variables the system, the login or the shell sets: facts of the machine, never switches,
# whatever the code does with them.
SYSTEM_FACTS: Final = (
    "PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONUSERBASE",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "LIBRARY_PATH",
    "CPATH",
    "PKG_CONFIG_PATH",
    "MANPATH",
    "HOME",
    "USER",
    "USERNAME",
    "LOGNAME",
    "HOSTNAME",
    "SHELL",
    "PWD",
    "OLDPWD",
    "TMPDIR",
    "TMP",
    "TEMP",
    "TERM",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "DISPLAY",
    "XDG_*",
    "SSH_*",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "VIRTUAL_ENV",
)


def name_words(name: str) -> list[str]:
    """The upper-case words of a variable, function or attribute name
    (``X_DISABLE_FUSED`` and ``disableFused`` both give ``[..., "DISABLE", "FUSED"]``)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w.upper() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


_DISABLE_HINT = re.compile(
    "|".join(sorted({*DISABLE_WORDS, *NEGATIONS, *(w for p in DISABLE_PHRASES for w in p)})),
    re.IGNORECASE,
)


def says_disable(name: str) -> bool:
    """Whether a name says that turning it on turns a feature off (``X_DISABLE_FUSED``,
    ``NO_TRITON``, ``FORCE_EAGER``; but not ``not_disabled``, a double negation)."""
    if _DISABLE_HINT.search(name) is None:
        return False  # none of the words could be in it
    words = name_words(name)
    count = 0
    for at, word in enumerate(words):
        before_disable = at + 1 < len(words) and words[at + 1] in DISABLE_WORDS
        if word in NEGATIONS or (word in DISABLE_WORDS and not before_disable):
            count += 1
    pairs = set(itertools.pairwise(words))
    count += sum(1 for phrase in DISABLE_PHRASES if phrase in pairs)
    return count % 2 == 1


def is_launch_fact(name: str, extra: Iterable[str] = ()) -> bool:
    """Whether ``name`` is a fact of the run: set by launchers or the system (the documented
    lists, plus ``extra`` patterns)."""
    if name in SLURM_INPUTS and name not in extra:
        return False
    return _launch_facts(tuple(extra)).match(name) is not None


@functools.lru_cache(maxsize=16)
def _launch_facts(extra: tuple[str, ...]) -> re.Pattern[str]:
    """The launch-fact patterns as one expression (``fnmatchcase`` semantics)."""
    patterns = (*LAUNCH_FACTS, *SYSTEM_FACTS, *extra)
    return re.compile("|".join(f"(?:{translate(p)})" for p in patterns))


def relative_path(path: Path, start: Path) -> str:
    """``path`` relative to the folder ``start`` (with ``..`` when outside), POSIX: how
    every output shows a path."""
    return Path(os.path.relpath(path.absolute(), start.absolute())).as_posix()
