"""Profiles: a registry profile resolved into concrete env and config values."""

from knobregistry.profiles.candidates import Candidate, LeftAlone, Why, knob_candidates, pick
from knobregistry.profiles.environment import Difference, differences, others, unset_names
from knobregistry.profiles.model import (
    CostLine,
    Intent,
    ProfileError,
    ResolvedProfile,
    Source,
    intent_of,
)
from knobregistry.profiles.resolve import profile_chain, resolve_profile
from scanner.conventions import OFF_LIKE, ON_LIKE  # which spellings mean off and on

__all__ = [
    "OFF_LIKE",
    "ON_LIKE",
    "Candidate",
    "CostLine",
    "Difference",
    "Intent",
    "LeftAlone",
    "ProfileError",
    "ResolvedProfile",
    "Source",
    "Why",
    "differences",
    "intent_of",
    "knob_candidates",
    "others",
    "pick",
    "profile_chain",
    "resolve_profile",
    "unset_names",
]
