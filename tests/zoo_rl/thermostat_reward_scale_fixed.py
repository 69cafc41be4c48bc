"""DQN on a tiny custom thermostat env whose cost is given in units of one degree of error (clean)."""

import random
from collections import deque

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

REWARD_UNIT = 1.0  # reward per degree of error
SEED, GAMMA, BATCH, LR, SYNC_EVERY = 0, 0.95, 32, 1e-3, 10
random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)


class ThermostatEnv(gym.Env):
    """Keep a room at 21 degrees: cool, idle or heat; 50 steps per episode."""

    def __init__(self):
        self.observation_space = gym.spaces.Box(-5.0, 5.0, shape=(1,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(3)
        self.temp, self.t = 21.0, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.temp, self.t = float(self.np_random.uniform(11, 31)), 0
        return self._obs(), {}

    def _obs(self):
        return np.array([(self.temp - 21.0) / 10.0], dtype=np.float32)

    def step(self, action):
        self.temp += (action - 1) + float(self.np_random.normal(0, 0.3))
        self.t += 1
        reward = -abs(self.temp - 21.0) * REWARD_UNIT
        return self._obs(), reward, False, self.t >= 50, {}


env = ThermostatEnv()
q_net = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 3))
target_net = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 3))
target_net.load_state_dict(q_net.state_dict())
optimizer = torch.optim.Adam(q_net.parameters(), lr=LR)
buffer = deque(maxlen=5000)
obs, _ = env.reset(seed=SEED)
updates = 0
for step in range(5000):
    if random.random() < 0.3:
        action = env.action_space.sample()
    else:
        with torch.no_grad():
            action = int(q_net(torch.as_tensor(obs)).argmax())
    next_obs, reward, terminated, truncated, _ = env.step(action)
    buffer.append((obs, action, reward, next_obs, terminated))
    obs = next_obs
    if terminated or truncated:
        obs, _ = env.reset()
    if len(buffer) >= 100:
        s, a, r, s2, d = (np.array(x) for x in zip(*random.sample(buffer, BATCH)))
        s, s2 = torch.as_tensor(s), torch.as_tensor(s2)
        r, d = torch.as_tensor(r, dtype=torch.float32), torch.as_tensor(d, dtype=torch.float32)
        with torch.no_grad():
            target = r + GAMMA * target_net(s2).max(1).values * (1 - d)
        q = q_net(s).gather(1, torch.as_tensor(a).unsqueeze(1)).squeeze(1)
        loss = F.smooth_l1_loss(q, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        updates += 1
        if updates % SYNC_EVERY == 0:
            target_net.load_state_dict(q_net.state_dict())
