from app.gen.runtime.utils.common import get_bool_env_var

FAST = get_bool_env_var("PRIMUS_TWIN_FAST", "1")
#      ^ PRIMUS_TWIN_FAST on default="1" off="0" read=wrapper via=common.get_bool_env_var
