import argparse

import gymnasium as gym
import numpy as np
import torch

from generator import NetworkPolicy, collect_episode
from networks import ActorCritic


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", default="ALE/Breakout-v5")
    ap.add_argument("--checkpoint", default="latest.pt")
    ap.add_argument("--episodes", type=int, default=20)
    args = ap.parse_args()

    env = gym.make(args.env, obs_type="rgb")
    model = ActorCritic(env.action_space.n)
    model.load_state_dict(torch.load(args.checkpoint, map_location="cpu"))
    policy = NetworkPolicy(model)
    returns = []
    for ep in range(args.episodes):
        frames, actions, rewards = collect_episode(env, policy)
        np.savez_compressed(f"episodes/ep{ep:05d}.npz", image=frames, action=actions, reward=rewards)
        returns.append(rewards.sum())
        print(f"episode {ep} return {returns[-1]:.1f} length {len(actions)}")
    print(f"mean return {np.mean(returns):.2f}")


if __name__ == "__main__":
    main()
