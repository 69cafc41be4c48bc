import torch as T
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions.normal import Normal


class CriticNetwork(nn.Module):
    def __init__(self, input_dims, n_actions, fc1_dims=64, fc2_dims=64):
        super().__init__()
        self.fc1 = nn.Linear(input_dims + n_actions, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, fc2_dims)
        self.q = nn.Linear(fc2_dims, 1)

    def forward(self, state, action):
        x = F.relu(self.fc1(T.cat([state, action], dim=1)))
        x = F.relu(self.fc2(x))
        return self.q(x)


class ValueNetwork(nn.Module):
    def __init__(self, input_dims, fc1_dims=64, fc2_dims=64):
        super().__init__()
        self.fc1 = nn.Linear(input_dims, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, fc2_dims)
        self.v = nn.Linear(fc2_dims, 1)

    def forward(self, state):
        x = F.relu(self.fc1(state))
        x = F.relu(self.fc2(x))
        return self.v(x)


class ActorNetwork(nn.Module):
    def __init__(self, input_dims, n_actions, fc1_dims=64, fc2_dims=64):
        super().__init__()
        self.reparam_noise = 1e-6
        self.fc1 = nn.Linear(input_dims, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, fc2_dims)
        self.mu = nn.Linear(fc2_dims, n_actions)
        self.sigma = nn.Linear(fc2_dims, n_actions)

    def forward(self, state):
        x = F.relu(self.fc1(state))
        x = F.relu(self.fc2(x))
        mu = self.mu(x)
        sigma = T.clamp(self.sigma(x), min=self.reparam_noise, max=1)
        return mu, sigma

    def sample_normal(self, state, deterministic=False):
        mu, sigma = self.forward(state)
        probabilities = Normal(mu, sigma)
        actions = mu if deterministic else probabilities.rsample()
        action = T.tanh(actions)
        log_probs = probabilities.log_prob(actions)
        log_probs -= T.log(1 - action.pow(2) + self.reparam_noise)
        log_probs = log_probs.sum(1, keepdim=True)
        return action, log_probs
