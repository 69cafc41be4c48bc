import torch

from bandit import ContextBandit
from reinforcement import Policy, Reinforcement


if __name__ == "__main__":
    torch.manual_seed(0)
    env = ContextBandit()
    agent = Reinforcement(Policy(env.n_features, env.n_arms), env)
    rewards = []
    for it in range(1, 201):
        r, l = agent.policy_gradient()
        rewards.append(r)
        if it % 25 == 0:
            print(f"iter {it:3d}  mean reward (last 25) {sum(rewards[-25:]) / 25:.3f}  loss {l:.4f}")
