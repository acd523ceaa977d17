# unsloth 2026.10.9 unsloth/models/_fused_rl_logprobs.py:29-66 and rl.py:4728, 4788-4792
# Default "1": unsloth_zoo's fused linear + log-softmax kernel (@triton.jit bodies in
# unsloth_zoo/fused_losses/fused_linear.py); "0": TRL's own (PyTorch) log-prob path.
import os


def _kernel():
    try:
        from unsloth_zoo.fused_losses.fused_linear import fused_linear_logprobs
    except Exception:
        return None
    return fused_linear_logprobs


def fused_head(model):
    if os.environ.get("UNSLOTH_FUSED_LINEAR", "1") == "0":
        return None, None, "UNSLOTH_FUSED_LINEAR=0"
    if _kernel() is None:
        return None, None, "unsloth_zoo has no fused_linear_logprobs"
    return model.lm_head, (1.0, 1.0, 0.0), None


def ppo_policy_logprobs(model, hidden, targets, trl_logprobs):
    head, transforms, reason = fused_head(model)
    if head is None:
        return trl_logprobs(model, hidden, targets)
    return _kernel()(hidden, head.weight, targets)
