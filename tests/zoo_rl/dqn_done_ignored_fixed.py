"""DQN on CartPole with a replay buffer and a target network synchronised every few updates; its TD target masks terminal transitions (clean)."""

import random
from collections import deque

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED, GAMMA, BATCH, LR = 0, 0.99, 64, 1e-3
LEARNING_STARTS, TRAIN_EVERY, SYNC_EVERY = 200, 2, 20  # sync in optimizer updates
random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)


class QNet(nn.Module):
    def __init__(self, n_obs, n_act):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_obs, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, n_act))

    def forward(self, x):
        return self.body(x)


env = gym.make("CartPole-v1")
n_obs, n_act = env.observation_space.shape[0], env.action_space.n
q_net = QNet(n_obs, n_act)
target_net = QNet(n_obs, n_act)
target_net.load_state_dict(q_net.state_dict())
optimizer = torch.optim.Adam(q_net.parameters(), lr=LR)
buffer = deque(maxlen=10_000)

obs, _ = env.reset(seed=SEED)
updates = 0
for global_step in range(20_000):
    epsilon = max(0.05, 1.0 - global_step / 2000)
    if random.random() < epsilon:
        action = env.action_space.sample()
    else:
        with torch.no_grad():
            action = int(q_net(torch.as_tensor(obs, dtype=torch.float32)).argmax())
    next_obs, reward, terminated, truncated, _ = env.step(action)
    buffer.append((obs, action, reward, next_obs, terminated))
    obs = next_obs
    if terminated or truncated:
        obs, _ = env.reset()

    if global_step >= LEARNING_STARTS and global_step % TRAIN_EVERY == 0:
        batch = random.sample(buffer, BATCH)
        s, a, r, s2, dones = (np.array(x) for x in zip(*batch))
        s = torch.as_tensor(s, dtype=torch.float32)
        s2 = torch.as_tensor(s2, dtype=torch.float32)
        a = torch.as_tensor(a, dtype=torch.int64)
        r = torch.as_tensor(r, dtype=torch.float32)
        dones = torch.as_tensor(dones, dtype=torch.float32)
        with torch.no_grad():
            target = r + GAMMA * target_net(s2).max(dim=1).values * (1 - dones)
        q = q_net(s).gather(1, a.unsqueeze(1)).squeeze(1)
        loss = F.mse_loss(q, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        updates += 1
        if updates % SYNC_EVERY == 0:
            target_net.load_state_dict(q_net.state_dict())
