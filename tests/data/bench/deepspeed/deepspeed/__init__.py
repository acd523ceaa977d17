from .constants import default_pg_timeout

__all__ = ["default_pg_timeout"]
