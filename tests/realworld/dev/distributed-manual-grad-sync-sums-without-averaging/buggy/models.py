import torch
from torch import nn


class Critic(nn.Module):
    def __init__(self, obs_dim, goal_dim, action_dim, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim + goal_dim + action_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.q_out = nn.Linear(hidden, 1)

    def forward(self, x, actions):
        x = torch.cat([x, actions], dim=1)
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.q_out(x)
