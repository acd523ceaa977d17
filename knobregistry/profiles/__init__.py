"""Profiles: a registry profile resolved into concrete env and config values."""

from knobregistry.profiles.environment import Difference, differences, others, unset_names
from knobregistry.profiles.model import (
    CostLine,
    Intent,
    ProfileError,
    ResolvedProfile,
    Source,
    intent_of,
)
from knobregistry.profiles.resolve import (
    Candidate,
    knob_candidates,
    profile_chain,
    resolve_profile,
    selects,
)
from scanner.conventions import OFF_LIKE, ON_LIKE  # which spellings mean off and on

__all__ = [
    "OFF_LIKE",
    "ON_LIKE",
    "Candidate",
    "CostLine",
    "Difference",
    "Intent",
    "ProfileError",
    "ResolvedProfile",
    "Source",
    "differences",
    "intent_of",
    "knob_candidates",
    "others",
    "profile_chain",
    "resolve_profile",
    "selects",
    "unset_names",
]
