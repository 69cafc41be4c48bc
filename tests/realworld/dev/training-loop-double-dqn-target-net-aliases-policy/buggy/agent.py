import math
import random

import torch
import torch.nn.functional as F
from torch import optim

from memory import ReplayBuffer
from networks import MLP


class DoubleDQN:
    def __init__(self, n_states, n_actions, cfg):
        self.n_actions = n_actions
        self.device = torch.device(cfg["device"])
        self.gamma = cfg["gamma"]
        self.batch_size = cfg["batch_size"]
        self.eps_start = cfg["epsilon_start"]
        self.eps_end = cfg["epsilon_end"]
        self.eps_decay = cfg["epsilon_decay"]
        self.sample_count = 0

        self.policy_net = MLP(n_states, n_actions, cfg["hidden_dim"]).to(self.device)
        self.target_net = self.policy_net
        self.optimizer = optim.Adam(self.policy_net.parameters(), lr=cfg["lr"])
        self.memory = ReplayBuffer(cfg["memory_capacity"])

    def sample_action(self, state):
        self.sample_count += 1
        epsilon = self.eps_end + (self.eps_start - self.eps_end) * \
            math.exp(-1.0 * self.sample_count / self.eps_decay)
        if random.random() < epsilon:
            return random.randrange(self.n_actions)
        with torch.no_grad():
            state = torch.tensor(state, device=self.device, dtype=torch.float32).unsqueeze(0)
            return self.policy_net(state).argmax(dim=1).item()

    @torch.no_grad()
    def predict_action(self, state):
        state = torch.tensor(state, device=self.device, dtype=torch.float32).unsqueeze(0)
        return self.policy_net(state).argmax(dim=1).item()

    def update(self):
        if len(self.memory) < self.batch_size:
            return None
        states, actions, rewards, next_states, dones = self.memory.sample(self.batch_size)
        states = torch.tensor(states, device=self.device)
        actions = torch.tensor(actions, device=self.device).unsqueeze(1)
        rewards = torch.tensor(rewards, device=self.device)
        next_states = torch.tensor(next_states, device=self.device)
        dones = torch.tensor(dones, device=self.device)

        q_values = self.policy_net(states).gather(1, actions).squeeze(1)
        with torch.no_grad():
            next_actions = self.policy_net(next_states).argmax(dim=1, keepdim=True)
            next_q = self.target_net(next_states).gather(1, next_actions).squeeze(1)
            expected_q = rewards + self.gamma * next_q * (1 - dones)

        loss = F.smooth_l1_loss(q_values, expected_q)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.policy_net.parameters(), 10.0)
        self.optimizer.step()
        return loss.item()

    def sync_target(self):
        self.target_net.load_state_dict(self.policy_net.state_dict())

    def save(self, path):
        torch.save(self.policy_net.state_dict(), path)
