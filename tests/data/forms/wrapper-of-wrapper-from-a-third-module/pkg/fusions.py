from pkg.util import env_flag


def fusion_enabled(name):
    return env_flag(name, default=True)
