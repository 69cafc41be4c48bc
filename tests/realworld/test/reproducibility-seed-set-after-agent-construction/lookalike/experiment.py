import random

import numpy as np
import torch
import torch.nn as nn


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_policy(obs_dim, act_dim):
    return nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, act_dim))


if __name__ == "__main__":
    seed_everything(0)
    pi = build_policy(3, 1)
    print(sum(p.sum().item() for p in pi.parameters()))
