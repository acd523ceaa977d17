# unsloth 2026.10.9 studio/backend/core/inference/stt_sidecar.py:422-447
import os
from pathlib import Path


def _active_hf_hub_cache() -> Path:
    try:
        from utils.hf_cache_settings import get_hf_cache_paths

        paths = get_hf_cache_paths()
        if paths.source == "studio":
            return Path(paths.hub_cache)
        explicit = (os.environ.get("HF_HUB_CACHE") or "").strip()
        if explicit:
            return Path(explicit).expanduser()
        return Path(paths.hub_cache)
    except Exception:
        explicit = (os.environ.get("HF_HUB_CACHE") or "").strip()
        if explicit:
            return Path(explicit).expanduser()
        from huggingface_hub.constants import HF_HUB_CACHE

        return Path(HF_HUB_CACHE)
