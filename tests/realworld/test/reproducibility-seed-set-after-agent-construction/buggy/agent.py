import copy

import torch
import torch.nn as nn


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim, max_action):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 400), nn.ReLU(), nn.Linear(400, 300), nn.ReLU(),
                                 nn.Linear(300, act_dim), nn.Tanh())
        self.max_action = max_action

    def forward(self, obs):
        return self.max_action * self.net(obs)


class Critic(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim + act_dim, 400), nn.ReLU(), nn.Linear(400, 300), nn.ReLU(),
                                 nn.Linear(300, 1))

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1))


class DDPG:
    def __init__(self, obs_dim, act_dim, max_action, lr=1e-4):
        self.actor = Actor(obs_dim, act_dim, max_action)
        self.actor_target = copy.deepcopy(self.actor)
        self.critic = Critic(obs_dim, act_dim)
        self.critic_target = copy.deepcopy(self.critic)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=lr)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
