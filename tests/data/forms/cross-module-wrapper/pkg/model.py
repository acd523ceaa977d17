from pkg.util import env_flag


def use_router() -> bool:
    return env_flag("PRIMUS_V4_ROUTER_TRITON")
#          ^ PRIMUS_V4_ROUTER_TRITON off default="False" off="0" function=use_router read=wrapper via=pkg.util.env_flag
