import os

# What the pinned variables held before: None until something is pinned.
_unpinned: dict[str, str | None] | None = None


def _has_no_cache() -> bool:
    return os.cpu_count() is not None


def pin_env(pins: dict[str, str]) -> None:
    global _unpinned
    launch = {name: os.environ.get(name) for name in pins}
    os.environ.update(pins)
    if _unpinned is not None:
        return
    _unpinned = launch if _has_no_cache() else {}
    if _unpinned:
        no_cache = os.environ.get("PRIMUS_NO_CACHE")
        #          ^ PRIMUS_NO_CACHE none function=pin_env
        os.environ["PRIMUS_NO_CACHE"] = ",".join(filter(None, [no_cache, *pins]))
