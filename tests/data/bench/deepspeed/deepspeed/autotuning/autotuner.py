import time

from .utils import *

try:
    import mlflow
    has_mlflow = True
except Exception as e:
    has_mlflow = False


class Autotuner:

    def __init__(self, args):
        self.args = args

    def tune(self):
        """ Tunes Zero stages, micro batch size per GPU, and other Zero configurations."""
        if has_mlflow:
            self.mlflow_parent_id = os.environ['MLFLOW_RUN_ID']
            mlflow.start_run(run_id=self.mlflow_parent_id)
        self.start_time = time.time()
