"""`knobs trace`: what a real run read, at the Python and C levels, held against the
static inventory, the registry and a profile.

- python_hook.py: installed as ``sitecustomize`` in every Python process of the run;
- interposer.c: the LD_PRELOAD library that records ``getenv``; native.py builds it;
- session.py runs the command, records.py reads what its processes wrote;
- reconcile.py holds the reads against a scan and the registry (report/trace.py prints them).
"""

from knobregistry.trace.model import (
    Copy,
    Level,
    Missing,
    MissKind,
    NotRead,
    ProfileDifference,
    Read,
    Reconciled,
    ResolvedDynamic,
    Seen,
    Trace,
    TraceSite,
)
from knobregistry.trace.native import NativeLevel, native_level
from knobregistry.trace.reconcile import reconcile
from knobregistry.trace.session import GRACE, CommandError, run_traced

__all__ = [
    "GRACE",
    "CommandError",
    "Copy",
    "Level",
    "MissKind",
    "Missing",
    "NativeLevel",
    "NotRead",
    "ProfileDifference",
    "Read",
    "Reconciled",
    "ResolvedDynamic",
    "Seen",
    "Trace",
    "TraceSite",
    "native_level",
    "reconcile",
    "run_traced",
]
