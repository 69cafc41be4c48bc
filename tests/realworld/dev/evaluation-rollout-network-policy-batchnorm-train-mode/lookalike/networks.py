import torch
import torch.nn as nn


class ConvEncoder(nn.Module):
    def __init__(self, in_ch=3, depth=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(in_ch, depth, 4, 2), nn.GroupNorm(8, depth), nn.ELU(),
            nn.Conv2d(depth, 2 * depth, 4, 2), nn.GroupNorm(8, 2 * depth), nn.ELU(),
            nn.Conv2d(2 * depth, 4 * depth, 4, 2), nn.GroupNorm(8, 4 * depth), nn.ELU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )

    def forward(self, x):
        return self.net(x)


class ActorCritic(nn.Module):
    def __init__(self, n_actions, depth=32, hidden=256):
        super().__init__()
        self.encoder = ConvEncoder(depth=depth)
        self.actor = nn.Sequential(nn.Linear(4 * depth, hidden), nn.ELU(), nn.Linear(hidden, n_actions))
        self.critic = nn.Sequential(nn.Linear(4 * depth, hidden), nn.ELU(), nn.Linear(hidden, 1))

    def forward(self, obs):
        z = self.encoder(obs)
        return self.actor(z), self.critic(z).squeeze(-1)
