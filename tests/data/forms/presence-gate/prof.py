import os


def maybe_profile():
    if "PRIMUS_PROFILE" in os.environ:
#      ^ PRIMUS_PROFILE off kind=presence function=maybe_profile read=contains
        start_profiler()
