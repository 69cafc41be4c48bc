import numpy as np
import torch
import torch.distributed as dist

from models import Critic
from mpi_utils import sync_grads, sync_networks


class TransitionBuffer:
    """Per-worker buffer of (obs, goal, action, target Q) tuples from this worker's rollouts."""

    def __init__(self, size, obs_dim, goal_dim, action_dim, seed):
        rng = np.random.default_rng(seed)
        self.obs = (2.0 * rng.normal(size=(size, obs_dim))).astype(np.float32)
        self.goal = rng.normal(size=(size, goal_dim)).astype(np.float32)
        self.actions = rng.uniform(-1, 1, size=(size, action_dim)).astype(np.float32)
        w = np.random.default_rng(0).normal(size=(obs_dim + goal_dim + action_dim,)) / 2.0
        inputs = np.concatenate([self.obs, self.goal, self.actions], 1)
        self.q_targets = (-np.abs(inputs @ w) + 0.05 * rng.normal(size=size)).astype(np.float32)[:, None]
        self.rng = rng

    def sample(self, batch_size):
        idx = self.rng.integers(0, len(self.obs), batch_size)
        x = np.concatenate([self.obs[idx], self.goal[idx]], 1)
        return (torch.from_numpy(x), torch.from_numpy(self.actions[idx]),
                torch.from_numpy(self.q_targets[idx]))


class Agent:
    def __init__(self, args, rank):
        self.args = args
        self.critic = Critic(args["obs_dim"], args["goal_dim"], args["action_dim"])
        sync_networks(self.critic)
        self.critic_optim = torch.optim.SGD(self.critic.parameters(), lr=args["lr_critic"], momentum=0.9)
        self.buffer = TransitionBuffer(4096, args["obs_dim"], args["goal_dim"], args["action_dim"],
                                       seed=100 + rank)

    def update_network(self):
        inputs, actions, q_target = self.buffer.sample(self.args["batch_size"])
        q_value = self.critic(inputs, actions)
        critic_loss = (q_target - q_value).pow(2).mean()
        self.critic_optim.zero_grad()
        critic_loss.backward()
        sync_grads(self.critic)
        self.critic_optim.step()
        return critic_loss.detach()

    def learn(self):
        for epoch in range(self.args["n_epochs"]):
            losses = [self.update_network() for _ in range(self.args["n_batches"])]
            mean_loss = torch.stack(losses).mean()
            dist.all_reduce(mean_loss)
            mean_loss /= dist.get_world_size()
            if dist.get_rank() == 0:
                print(f"epoch {epoch} critic loss {mean_loss.item():.5f}")
