import torch

from policy import ConstrainedTokenPolicy
from utils import entropy_from_logits, masked_mean, selective_log_softmax


class GrammarMaskedPGTrainer:
    def __init__(self, policy, lr=1e-3, entropy_coef=0.01):
        self.policy = policy
        self.entropy_coef = entropy_coef
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=lr)

    @torch.no_grad()
    def rollout(self, batch_size, length, allowed):
        ids = torch.zeros(batch_size, 1, dtype=torch.long)
        for t in range(length):
            logits = self.policy(ids, allowed[:, : t + 1])[:, -1]
            nxt = torch.distributions.Categorical(logits=logits).sample()
            ids = torch.cat([ids, nxt[:, None]], dim=1)
        return ids

    def compute_loss(self, ids, allowed, rewards):
        inputs, targets = ids[:, :-1], ids[:, 1:]
        logits = self.policy(inputs, allowed)
        logps = selective_log_softmax(logits, targets)
        mask = torch.ones_like(logps)
        advantages = (rewards - rewards.mean())[:, None]
        pg_loss = -masked_mean(advantages * logps, mask)
        entropy = entropy_from_logits(logits)
        loss = pg_loss - self.entropy_coef * masked_mean(entropy, mask)
        return loss, {"pg_loss": pg_loss.item(), "entropy": masked_mean(entropy, mask).item()}

    def step(self, batch_size=16, length=12):
        vocab = self.policy.lm_head.out_features
        allowed = torch.rand(batch_size, length, vocab) < 0.5
        allowed[..., 1] = True
        ids = self.rollout(batch_size, length, allowed)
        rewards = (ids[:, 1:] % 2 == 0).float().mean(dim=1)
        loss, stats = self.compute_loss(ids, allowed, rewards)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item(), stats


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = GrammarMaskedPGTrainer(ConstrainedTokenPolicy())
    for it in range(30):
        loss, stats = trainer.step()
        if it % 5 == 0:
            print(it, round(loss, 4), stats)
