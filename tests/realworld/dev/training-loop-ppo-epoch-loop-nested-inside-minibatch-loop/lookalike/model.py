import torch
from torch import nn


class MLPBase(nn.Module):
    """Shared-trunk actor-critic for vector observations."""

    def __init__(self, num_obs, num_actions, hidden=64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(num_obs, hidden), nn.Tanh(),
                                   nn.Linear(hidden, hidden), nn.Tanh())
        self.policy = nn.Linear(hidden, num_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return self.policy(h), self.value(h).squeeze(-1)

    @torch.no_grad()
    def act(self, obs):
        logits, value = self(obs)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        return action, dist.log_prob(action).exp(), value
