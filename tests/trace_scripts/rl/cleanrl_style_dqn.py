"""A single-file DQN agent on CartPole written in the CleanRL style (own code): a vector env, a replay buffer,
learning starts after a warm-up, a hard target sync every few hundred environment steps.

Used by tests/runtime/trace/test_rl_clean_agents.py: traced for a few updates it must draw no warning or error.
"""

import random

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED, BUFFER, GAMMA, TAU, LR, BATCH = 1, 10_000, 0.99, 1.0, 2.5e-4, 128
LEARNING_STARTS, TRAIN_FREQUENCY, TARGET_FREQUENCY, TOTAL = 1000, 10, 500, 50_000
random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)


class QNetwork(nn.Module):
    def __init__(self, n_obs, n_act):
        super().__init__()
        self.network = nn.Sequential(nn.Linear(n_obs, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, n_act))

    def forward(self, x):
        return self.network(x)


def epsilon(start, end, duration, t):
    return max(end, start + (end - start) * t / duration)


class Replay:
    def __init__(self, size, n_obs):
        self.obs = np.zeros((size, n_obs), np.float32)
        self.next_obs = np.zeros((size, n_obs), np.float32)
        self.actions = np.zeros(size, np.int64)
        self.rewards = np.zeros(size, np.float32)
        self.terminated = np.zeros(size, np.float32)
        self.size, self.pos, self.full = size, 0, False

    def add(self, obs, next_obs, actions, rewards, terminated):
        for i in range(len(obs)):
            p = self.pos
            self.obs[p], self.next_obs[p], self.actions[p] = obs[i], next_obs[i], actions[i]
            self.rewards[p], self.terminated[p] = rewards[i], terminated[i]
            self.pos = (p + 1) % self.size
            self.full = self.full or self.pos == 0

    def sample(self, n):
        idx = np.random.randint(0, self.size if self.full else self.pos, n)
        t = torch.as_tensor
        return t(self.obs[idx]), t(self.actions[idx]), t(self.rewards[idx]), t(self.next_obs[idx]), t(self.terminated[idx])


envs = gym.vector.SyncVectorEnv([lambda: gym.wrappers.RecordEpisodeStatistics(gym.make("CartPole-v1"))],
                                autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
n_obs, n_act = envs.single_observation_space.shape[0], envs.single_action_space.n
q_network = QNetwork(n_obs, n_act)
optimizer = torch.optim.Adam(q_network.parameters(), lr=LR)
target_network = QNetwork(n_obs, n_act)
target_network.load_state_dict(q_network.state_dict())
rb = Replay(BUFFER, n_obs)

obs, _ = envs.reset(seed=SEED)
for global_step in range(TOTAL):
    if random.random() < epsilon(1.0, 0.05, 0.5 * TOTAL, global_step):
        actions = np.array([envs.single_action_space.sample()])
    else:
        with torch.no_grad():
            actions = q_network(torch.as_tensor(obs)).argmax(dim=1).numpy()
    next_obs, rewards, terminations, truncations, infos = envs.step(actions)
    real_next_obs = next_obs.copy()
    for i, trunc in enumerate(truncations):
        if trunc:  # same-step autoreset: the real last observation of the episode is in the info
            real_next_obs[i] = infos["final_obs"][i]
    rb.add(obs, real_next_obs, actions, rewards, terminations)
    obs = next_obs

    if global_step > LEARNING_STARTS:
        if global_step % TRAIN_FREQUENCY == 0:
            s, a, r, s2, term = rb.sample(BATCH)
            with torch.no_grad():
                target_max, _ = target_network(s2).max(dim=1)
                td_target = r + GAMMA * target_max * (1 - term)
            old_val = q_network(s).gather(1, a.unsqueeze(1)).squeeze()
            loss = F.mse_loss(td_target, old_val)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if global_step % TARGET_FREQUENCY == 0:
            for tp, qp in zip(target_network.parameters(), q_network.parameters()):
                tp.data.copy_(TAU * qp.data + (1.0 - TAU) * tp.data)
envs.close()
