# sglang 0.5.23, sglang/srt/environ.py: a registry of descriptors named by the attribute
# (__set_name__), in a folder that is no package (sglang/srt has no __init__.py).
import os


class EnvField:
    def __init__(self, default):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name

    def get(self):
        value = os.getenv(self.name)
        return self.default if value is None else int(value)


class Envs:
    PKG_VIT_TOKEN_BLOCK = EnvField(4096)
#                         ^ PKG_VIT_TOKEN_BLOCK none default="4096" function=Envs read=descriptor via=environ.EnvField


envs = Envs()
