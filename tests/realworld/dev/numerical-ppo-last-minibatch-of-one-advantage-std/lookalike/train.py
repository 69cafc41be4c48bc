import argparse

import torch

from agent import ActorCritic
from buffer import RolloutBuffer
from ppo import PPO


class ToyJobShopEnv:
    """Vectorised stand-in for the scheduling env: random features, reward for picking the best job."""

    def __init__(self, n_envs, obs_dim, n_actions, episode_len):
        self.n_envs, self.obs_dim, self.n_actions = n_envs, obs_dim, n_actions
        self.episode_len = episode_len
        self.t = torch.zeros(n_envs)

    def reset(self):
        self.t.zero_()
        return torch.randn(self.n_envs, self.obs_dim)

    def step(self, actions):
        obs = torch.randn(self.n_envs, self.obs_dim)
        reward = (actions == 0).float() - 0.1
        self.t += 1
        done = (self.t >= self.episode_len).float()
        self.t[done.bool()] = 0
        return obs, reward, done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_workers", type=int, default=1)
    parser.add_argument("--n_steps_episode", type=int, default=4)
    parser.add_argument("--batch_size", type=int, default=3)
    parser.add_argument("--n_epochs", type=int, default=1)
    parser.add_argument("--total_updates", type=int, default=20)
    args = parser.parse_args()

    torch.manual_seed(0)
    obs_dim, n_actions = 8, 4
    env = ToyJobShopEnv(args.n_workers, obs_dim, n_actions, args.n_steps_episode)
    agent = ActorCritic(obs_dim, n_actions)
    ppo = PPO(agent, batch_size=args.batch_size, n_epochs=args.n_epochs)
    buffer = RolloutBuffer(args.n_steps_episode, args.n_workers, obs_dim)

    obs, done = env.reset(), torch.zeros(args.n_workers)
    for update in range(args.total_updates):
        for _ in range(args.n_steps_episode):
            with torch.no_grad():
                dist, value = agent(obs)
                action = dist.sample()
            next_obs, reward, next_done = env.step(action)
            buffer.add(obs, action, reward, done, value, dist.log_prob(action))
            obs, done = next_obs, next_done
        with torch.no_grad():
            _, last_value = agent(obs)
        buffer.compute_returns_and_advantage(last_value, done)
        loss = ppo.train(buffer)
        print(f"update {update}: loss {loss:.4f}")


if __name__ == "__main__":
    main()
