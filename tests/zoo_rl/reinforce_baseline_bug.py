"""REINFORCE on CartPole weighting every step by the undiscounted total episode return, with no baseline (bug)."""

import gymnasium as gym
import torch
import torch.nn as nn
from torch.distributions import Categorical

GAMMA, LR, SEED = 0.99, 1e-2, 0
torch.manual_seed(SEED)

env = gym.make("CartPole-v1")
policy = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=LR)


def returns_to_go(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return torch.tensor(out[::-1])


for episode in range(300):
    obs, _ = env.reset(seed=SEED + episode)
    log_probs, rewards, done = [], [], False
    while not done:
        dist = Categorical(logits=policy(torch.as_tensor(obs, dtype=torch.float32)))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        obs, reward, terminated, truncated, _ = env.step(action.item())
        rewards.append(reward)
        done = terminated or truncated
    returns = torch.full((len(rewards),), float(sum(rewards)))
    loss = -(torch.stack(log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
