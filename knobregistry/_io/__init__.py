"""Files and processes: atomic writes, bounded reads, locks, JSON, the cache folder, /proc."""
