import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from agent import Agent

ARGS = {
    "obs_dim": 10,
    "goal_dim": 3,
    "action_dim": 4,
    "lr_critic": 0.1,
    "batch_size": 128,
    "n_epochs": 10,
    "n_batches": 40,
    "num_workers": 2,
}


def worker(rank, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29561")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=args["num_workers"])
    torch.manual_seed(rank)
    agent = Agent(args, rank)
    agent.learn()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(ARGS,), nprocs=ARGS["num_workers"])
