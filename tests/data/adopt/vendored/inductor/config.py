import os

# put correctness assertions in generated code
size_asserts = os.environ.get("TORCHINDUCTOR_SIZE_ASSERTS", "1") == "1"

fused_softmax = os.environ.get("TORCHINDUCTOR_FUSED_SOFTMAX", "1") != "0"
