import torch


class RolloutBuffer:
    def __init__(self, n_steps, n_envs, obs_dim, gamma=0.99, gae_lambda=0.95):
        self.n_steps, self.n_envs = n_steps, n_envs
        self.gamma, self.gae_lambda = gamma, gae_lambda
        self.obs = torch.zeros(n_steps, n_envs, obs_dim)
        self.actions = torch.zeros(n_steps, n_envs, dtype=torch.long)
        self.rewards = torch.zeros(n_steps, n_envs)
        self.dones = torch.zeros(n_steps, n_envs)
        self.values = torch.zeros(n_steps, n_envs)
        self.log_probs = torch.zeros(n_steps, n_envs)
        self.pos = 0

    def add(self, obs, action, reward, done, value, log_prob):
        self.obs[self.pos] = obs
        self.actions[self.pos] = action
        self.rewards[self.pos] = reward
        self.dones[self.pos] = done
        self.values[self.pos] = value
        self.log_probs[self.pos] = log_prob
        self.pos += 1

    def compute_returns_and_advantage(self, last_values, last_dones):
        self.advantages = torch.zeros_like(self.rewards)
        last_gae = torch.zeros(self.n_envs)
        for t in reversed(range(self.n_steps)):
            if t == self.n_steps - 1:
                next_non_terminal, next_values = 1.0 - last_dones, last_values
            else:
                next_non_terminal, next_values = 1.0 - self.dones[t + 1], self.values[t + 1]
            delta = self.rewards[t] + self.gamma * next_values * next_non_terminal - self.values[t]
            last_gae = delta + self.gamma * self.gae_lambda * next_non_terminal * last_gae
            self.advantages[t] = last_gae
        self.returns = self.advantages + self.values

    def get(self, batch_size):
        total = self.n_steps * self.n_envs
        indices = torch.randperm(total)
        flat = {
            "obs": self.obs.reshape(total, -1),
            "actions": self.actions.reshape(total),
            "old_values": self.values.reshape(total),
            "old_log_prob": self.log_probs.reshape(total),
            "advantages": self.advantages.reshape(total),
            "returns": self.returns.reshape(total),
        }
        start = 0
        while start < total:
            idx = indices[start : start + batch_size]
            yield {k: v[idx] for k, v in flat.items()}
            start += batch_size
        self.pos = 0
