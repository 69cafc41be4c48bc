"""REINFORCE on CartPole with discounted reward-to-go returns, normalised per episode with a policy learning rate of 0.1, a supervised-learning default: the policy turns deterministic within a few updates (bug)."""

import gymnasium as gym
import torch
import torch.nn as nn
from torch.distributions import Categorical

GAMMA, LR, SEED = 0.99, 0.1, 0
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
    returns = returns_to_go(rewards, GAMMA)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = -(torch.stack(log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
