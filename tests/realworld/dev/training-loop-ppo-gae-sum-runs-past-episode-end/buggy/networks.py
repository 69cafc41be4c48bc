import torch
from torch import nn, optim
from torch.distributions.categorical import Categorical


class ActorNetwork(nn.Module):
    def __init__(self, n_actions, input_dims, lr, hidden=64):
        super().__init__()
        self.pi = nn.Sequential(
            nn.Linear(*input_dims, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, n_actions),
        )
        self.optimizer = optim.Adam(self.parameters(), lr=lr)

    def forward(self, state):
        return Categorical(logits=self.pi(state))


class CriticNetwork(nn.Module):
    def __init__(self, input_dims, lr, hidden=64):
        super().__init__()
        self.v = nn.Sequential(
            nn.Linear(*input_dims, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, 1),
        )
        self.optimizer = optim.Adam(self.parameters(), lr=lr)

    def forward(self, state):
        return self.v(state)
