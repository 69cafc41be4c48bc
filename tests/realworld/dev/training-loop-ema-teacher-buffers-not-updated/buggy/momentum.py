import copy
import math

import torch
import torch.nn as nn


class MomentumUpdater:
    def __init__(self, base_tau: float = 0.99, final_tau: float = 1.0):
        self.base_tau = base_tau
        self.final_tau = final_tau
        self.cur_tau = base_tau

    @torch.no_grad()
    def update(self, online_net: nn.Module, momentum_net: nn.Module):
        for op, mp in zip(online_net.parameters(), momentum_net.parameters()):
            mp.data.mul_(self.cur_tau).add_(op.data * (1 - self.cur_tau))

    def update_tau(self, cur_step: int, max_steps: int):
        self.cur_tau = self.final_tau - (self.final_tau - self.base_tau) * (math.cos(math.pi * cur_step / max_steps) + 1) / 2
