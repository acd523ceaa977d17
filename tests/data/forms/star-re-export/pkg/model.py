from pkg.utils import get_bool_env_var

USE_TRITON = get_bool_env_var("PRIMUS_STAR_TRITON", "true")
#            ^ PRIMUS_STAR_TRITON on default="true" off="0" read=wrapper via=pkg.utils.common.get_bool_env_var
