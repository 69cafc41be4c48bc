import torch
import torch.nn as nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, n_features, n_arms, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, n_arms))

    def forward(self, ctx):
        return torch.softmax(self.net(ctx), dim=-1)


class Reinforcement:
    def __init__(self, policy, env, lr=1e-2, entropy_coef=0.01):
        self.policy = policy
        self.env = env
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
        self.entropy_coef = entropy_coef
        self.baseline = 0.0

    def policy_gradient(self, n_batch=32):
        rl_loss = 0
        total_reward = 0.0
        for _ in range(n_batch):
            ctx = self.env.sample()
            dist = Categorical(self.policy(ctx)[0])
            action = dist.sample()
            reward = self.env.reward(ctx, action)
            advantage = reward - self.baseline
            log_prob = dist.log_prob(action)
            rl_loss = rl_loss - log_prob.item() * advantage
            rl_loss = rl_loss - self.entropy_coef * dist.entropy()
            total_reward += reward
        rl_loss = rl_loss / n_batch
        mean_reward = total_reward / n_batch
        self.baseline = 0.9 * self.baseline + 0.1 * mean_reward
        self.optimizer.zero_grad()
        rl_loss.backward()
        self.optimizer.step()
        return mean_reward, rl_loss.item()
