# unsloth 2026.10.9 unsloth/models/loader_utils.py:4687, 5096 (stubs: folder look-ups, no kernels)
import os


def _tokenizer_cache_dir(tokenizer):
    return getattr(tokenizer, "cache_dir", None)


def _resolve_hub_repo_cached_file(repo_id, filename, token=None, local_files_only=True, cache_dir=None):
    path = os.path.join(cache_dir or "", repo_id, filename)
    return path if os.path.isfile(path) else None
