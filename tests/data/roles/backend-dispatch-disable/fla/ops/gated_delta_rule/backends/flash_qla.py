# fla/ops/gated_delta_rule/backends/flash_qla.py:32-48, 98-119: an external fused TileLang library
from fla.ops.backends import _REGISTRY, BaseBackend


class FlashQLABackend(BaseBackend):
    backend_type = "flash_qla"
    env_var = "FLA_FLASH_QLA"
    default_enable = True

    def chunk_gated_delta_rule(self, q, k, v, g, beta, **kwargs):
        import flash_qla

        return flash_qla.chunk_gated_delta_rule(q=q, k=k, v=v, g=g, beta=beta, **kwargs)


_REGISTRY.setdefault("gated_delta_rule", []).append(FlashQLABackend())
