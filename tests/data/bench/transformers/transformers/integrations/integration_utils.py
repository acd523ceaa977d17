import os


class KubeflowCallback:
    """Reports training progress to the Kubeflow trainer server."""

    _ENV_SERVER_URL = "KUBEFLOW_TRAINER_SERVER_URL"

    def __init__(self):
        self._url = None

    def setup(self):
        url = os.environ.get(self._ENV_SERVER_URL)
        if url is None:
            raise RuntimeError("KubeflowCallback requires KUBEFLOW_TRAINER_SERVER_URL to be set.")
        self._url = url
