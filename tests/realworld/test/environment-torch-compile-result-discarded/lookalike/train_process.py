import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, policy, lr=1e-4, use_compile=True):
        self.policy = policy
        if use_compile:
            self.policy.model.compile(mode="default")
        self.opt = torch.optim.AdamW(self.policy.parameters(), lr=lr)

    def step(self, obs, actions):
        loss = F.mse_loss(self.policy(obs), actions)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()
