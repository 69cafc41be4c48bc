import torch
import torch.nn.functional as F


class PPO:
    def __init__(self, agent, lr=3e-4, n_epochs=4, batch_size=64, clip_range=0.2,
                 ent_coef=0.01, vf_coef=0.5, normalize_advantage=True, max_grad_norm=0.5):
        self.agent = agent
        self.optimizer = torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)
        self.n_epochs, self.batch_size = n_epochs, batch_size
        self.clip_range, self.ent_coef, self.vf_coef = clip_range, ent_coef, vf_coef
        self.normalize_advantage = normalize_advantage
        self.max_grad_norm = max_grad_norm

    def train(self, buffer):
        stats = []
        for _ in range(self.n_epochs):
            for mb in buffer.get(self.batch_size):
                values, log_prob, entropy = self.agent.evaluate_actions(mb["obs"], mb["actions"])
                mb_advantages = mb["advantages"]
                if self.normalize_advantage:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                ratio = torch.exp(log_prob - mb["old_log_prob"])
                policy_loss_1 = mb_advantages * ratio
                policy_loss_2 = mb_advantages * torch.clamp(ratio, 1 - self.clip_range, 1 + self.clip_range)
                policy_loss = -torch.min(policy_loss_1, policy_loss_2).mean()
                value_loss = F.mse_loss(mb["returns"], values)
                entropy_loss = -entropy.mean()
                loss = policy_loss + self.vf_coef * value_loss + self.ent_coef * entropy_loss

                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.agent.parameters(), self.max_grad_norm)
                self.optimizer.step()
                stats.append(loss.item())
        return sum(stats) / len(stats)
