# FlagOpen/FlagGems@532ff438 src/flag_gems/utils/libentry.py:57, 283-304, 344, 427
# The value picks where tuned configs are kept: an on-disk SQLite file or ":memory:".
import os
import sqlite3
from pathlib import Path

import triton

FLAGGEMS_ENABLE_DISK_CACHE = os.getenv("FLAGGEMS_ENABLE_DISK_CACHE", "1") == "1"


class LibCache(object):
    def __init__(self, enable_disk_cache: bool):
        cache_file_name = f"TunedConfig_triton_{triton.__version__}.db"
        self.cache_path = (
            (Path.home() / ".flaggems" / cache_file_name) if enable_disk_cache else ":memory:"
        )
        self.conn = sqlite3.connect(self.cache_path)


libcache = LibCache(FLAGGEMS_ENABLE_DISK_CACHE)


class LibTuner(triton.runtime.Autotuner):
    def run(self, *args, **kwargs):
        key = tuple(kwargs[k] for k in self.keys)
        row = libcache.conn.execute("SELECT config FROM tuned WHERE key=?", (str(key),)).fetchone()
        if row is None:
            timings = {config: self._bench(*args, config=config, **kwargs) for config in self.configs}
            self.best_config = min(timings, key=timings.get)
            libcache.conn.execute("INSERT INTO tuned VALUES (?, ?)", (str(key), str(self.best_config)))
        return super().run(*args, **kwargs)
