import argparse
import random

import numpy as np
import torch

from agent import TextAgent
from games.kitchen import KitchenGames


def set_all_seeds(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def play(agent, env, opt):
    """Run opt.nepisodes episodes; returns the mean score per episode."""
    episode_scores = []
    for no_episode in range(opt.nepisodes):
        # make every episode reproducible
        if opt.mode == "train":
            episode_seed = opt.seed * 1_000_000 + no_episode
        else:
            # every run is scored on the same held-out games (greedy, no dropout)
            episode_seed = opt.games_offset + no_episode
        set_all_seeds(episode_seed)
        env.seed(episode_seed)

        obs, infos = env.reset()
        scores = np.zeros(opt.batch_size)
        dones = [False] * opt.batch_size
        while not all(dones):
            commands = agent.act(obs, infos)
            obs, rewards, dones, infos = env.step(commands)
            agent.observe(rewards)
            scores += rewards
        agent.end_episode()
        episode_scores.append(scores.mean())
    return np.array(episode_scores)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--initial_seed", type=int, default=42)
    parser.add_argument("--nruns", type=int, default=4)
    parser.add_argument("--no_train_episodes", type=int, default=60)
    parser.add_argument("--no_eval_episodes", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--hidden_size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-2)
    opt = parser.parse_args()
    torch.set_num_threads(1)

    random.seed(opt.initial_seed)
    seeds = [random.randint(1, 100) for _ in range(opt.nruns)]
    train_curves, eval_scores = [], []
    for n in range(opt.nruns):
        opt.seed = seeds[n]
        set_all_seeds(opt.seed)
        agent = TextAgent(opt)
        env = KitchenGames(opt.batch_size)

        agent.training = True
        opt.mode = "train"
        opt.nepisodes = opt.no_train_episodes
        opt.games_offset = 0            # training games
        curve = play(agent, env, opt)

        agent.training = False
        opt.mode = "eval"
        opt.nepisodes = opt.no_eval_episodes
        opt.games_offset = 100_000      # held-out games, disjoint from training
        eval_scores.append(play(agent, env, opt).mean())
        train_curves.append(curve)
        print(f"run {n} (seed {opt.seed}): first train episodes {np.round(curve[:4], 3)}  "
              f"last-10 train {curve[-10:].mean():.3f}  eval {eval_scores[-1]:.3f}")

    curves = np.stack(train_curves)
    print(f"train score over runs: mean {curves[:, -10:].mean():.3f}  "
          f"std across runs (per episode, averaged) {curves.std(axis=0).mean():.4f}")
    print(f"eval score over runs: {np.mean(eval_scores):.3f} +- {np.std(eval_scores):.3f}")
