import gymnasium as gym
import numpy as np
import torch

from agent import DoubleDQN

CFG = {
    "env_name": "CartPole-v1",
    "device": "cuda" if torch.cuda.is_available() else "cpu",
    "train_eps": 300,
    "gamma": 0.99,
    "batch_size": 64,
    "hidden_dim": 256,
    "lr": 1e-4,
    "memory_capacity": 100000,
    "epsilon_start": 0.95,
    "epsilon_end": 0.01,
    "epsilon_decay": 500,
    "target_update": 4,
    "seed": 10,
}


def train(cfg):
    env = gym.make(cfg["env_name"])
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    n_states = env.observation_space.shape[0]
    n_actions = env.action_space.n
    agent = DoubleDQN(n_states, n_actions, cfg)

    rewards = []
    for i_ep in range(cfg["train_eps"]):
        state, _ = env.reset(seed=cfg["seed"] + i_ep)
        ep_reward = 0.0
        done = False
        while not done:
            action = agent.sample_action(state)
            next_state, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            agent.memory.push(state, action, reward, next_state, terminated)
            state = next_state
            agent.update()
            ep_reward += reward
        if (i_ep + 1) % cfg["target_update"] == 0:
            agent.sync_target()
        rewards.append(ep_reward)
        if (i_ep + 1) % 10 == 0:
            print(f"episode {i_ep + 1}/{cfg['train_eps']}  reward {np.mean(rewards[-10:]):.1f}")
    env.close()
    agent.save("ddqn_cartpole.pt")
    return rewards


if __name__ == "__main__":
    train(CFG)
