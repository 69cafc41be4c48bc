import argparse
import random

import gymnasium as gym
import numpy as np
import torch

from agent import DDPG


def set_seed(seed, env):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    env.reset(seed=seed)
    env.action_space.seed(seed)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--env", default="Pendulum-v1")
    p.add_argument("--seed", type=int, default=123)
    args = p.parse_args()

    env = gym.make(args.env)
    obs_dim = env.observation_space.shape[0]
    act_dim = env.action_space.shape[0]
    agent = DDPG(obs_dim, act_dim, float(env.action_space.high[0]))
    set_seed(args.seed, env)

    obs, _ = env.reset()
    for t in range(100_000):
        with torch.no_grad():
            action = agent.actor(torch.as_tensor(obs, dtype=torch.float32)).numpy()
        action = np.clip(action + np.random.normal(0, 0.1, act_dim), -2, 2)
        obs, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()


if __name__ == "__main__":
    main()
