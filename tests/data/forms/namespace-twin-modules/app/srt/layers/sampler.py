# sglang/srt/layers/sampler.py:28 imports the accessor by its full module path.
from app.srt.utils.common import get_bool_env_var

USE_AITER = get_bool_env_var("PRIMUS_TWIN_AITER")
#           ^ PRIMUS_TWIN_AITER off default="false" off="0" read=wrapper via=utils.common.get_bool_env_var
