# unsloth 2026.10.9 unsloth/save.py:704-735 (the same form again at :803-807)
# HF_HUB_CACHE is the Hugging Face download folder: the value is a path, used or replaced.
import os

from .models.loader_utils import _resolve_hub_repo_cached_file, _tokenizer_cache_dir

_TOKENIZER_MODEL_CACHE = {}


def _has_tokenizer_model(tokenizer, token=None):
    source = getattr(tokenizer, "name_or_path", None)
    if not isinstance(source, str) or not source:
        return False
    if os.path.isdir(source):
        return os.path.isfile(os.path.join(source, "tokenizer.model"))
    if source in _TOKENIZER_MODEL_CACHE:
        return _TOKENIZER_MODEL_CACHE[source]

    # Hub repo id: probe the local cache before model_info (#7481).
    cache_dir = _tokenizer_cache_dir(tokenizer) or os.environ.get("HF_HUB_CACHE")
    if not cache_dir:
        hf_home = os.environ.get("HF_HOME")
        if hf_home:
            cache_dir = os.path.join(hf_home, "hub")

    cached_path = _resolve_hub_repo_cached_file(
        source,
        "tokenizer.model",
        token=token,
        local_files_only=True,
        cache_dir=cache_dir,
    )
    _TOKENIZER_MODEL_CACHE[source] = cached_path is not None
    return cached_path is not None
