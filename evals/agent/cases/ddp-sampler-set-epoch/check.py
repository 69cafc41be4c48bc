"""Shuffling check: under DistributedSampler each epoch must visit the data in a new order.
Runs the script in-process (a 1-process gloo group) and records each epoch's index order.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import runpy
import sys
import tempfile

import torch.utils.data
import torch.utils.data.distributed

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
orders = []
_orig_iter = torch.utils.data.distributed.DistributedSampler.__iter__


def recording_iter(self):
    order = list(_orig_iter(self))
    orders.append(order)
    return iter(order)


torch.utils.data.distributed.DistributedSampler.__iter__ = recording_iter
os.environ["MASTER_PORT"] = str(29600 + os.getpid() % 300)
os.chdir(project)
sys.path.insert(0, project)
sys.argv = ["train_ddp.py", "--epochs", "3", "--out", tempfile.mkdtemp(prefix="ddp_check_")]
runpy.run_path(os.path.join(project, "train_ddp.py"), run_name="__main__")
distinct = len({tuple(o) for o in orders})
print(json.dumps({"metric": "distinct_epoch_orders_of_3", "value": distinct, "pass": len(orders) >= 3 and distinct == len(orders)}))
