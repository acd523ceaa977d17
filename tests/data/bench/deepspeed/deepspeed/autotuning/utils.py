import re
import os
import json


def was_interruptted(filename):
    if not os.path.exists(filename):
        return "stderr.log does not exist"
    with open(filename) as f:
        for line in f.readlines():
            if re.search("KeyboardInterrupt", line):
                return True
    return False


def write_experiments(exps, exps_dir):
    exp_paths = []
    for exp in exps:
        exp_path = os.path.join(exps_dir, f"{exp['name']}.json")
        with open(exp_path, 'w') as fd:
            json.dump(exp, fd)
        exp_paths.append(exp_path)
    return exp_paths
