import os


class Router:
    def _flag(self, name, default="1"):
        return os.environ.get(name, default) != "0"

    def use_triton(self):
        return self._flag("PRIMUS_V4_ROUTER_TRITON")
#              ^ PRIMUS_V4_ROUTER_TRITON on default="1" off="0" function=Router.use_triton read=wrapper via=router.Router._flag
