import os

CUDA_GRAPH = os.environ.get("PRIMUS_CUDA_GRAPH", "true") == "true"
#            ^ PRIMUS_CUDA_GRAPH on default="true" off="false" read=get
