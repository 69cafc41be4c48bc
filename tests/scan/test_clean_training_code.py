"""Correct training code in the shapes people actually write: no rule may fire."""

from __future__ import annotations

import pytest

from scan.helpers import reported

CLEAN = {
    "amp_accumulation_warmup_eval": """
        import torch
        from torch import nn
        from transformers import get_linear_schedule_with_warmup

        def evaluate(model, loader):
            model.eval()
            total = 0.0
            with torch.inference_mode():
                for batch in loader:
                    total += model(**batch).loss.item()
            return total / len(loader)

        def train(model, train_loader, val_loader, epochs=3, accum=4, max_norm=1.0):
            optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
            steps = epochs * len(train_loader) // accum
            scheduler = get_linear_schedule_with_warmup(optimizer, steps // 10, steps)
            scaler = torch.amp.GradScaler("cuda")
            for epoch in range(epochs):
                model.train()
                running = 0.0
                for i, batch in enumerate(train_loader):
                    with torch.autocast("cuda", dtype=torch.float16):
                        loss = model(**batch).loss / accum
                    scaler.scale(loss).backward()
                    running += loss.item()
                    if (i + 1) % accum == 0 or i + 1 == len(train_loader):
                        scaler.unscale_(optimizer)
                        nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                        scaler.step(optimizer)
                        scaler.update()
                        optimizer.zero_grad(set_to_none=True)
                        scheduler.step()
                print(epoch, running, evaluate(model, val_loader))
        """,
    "lightning_manual_optimization": """
        import torch
        import lightning as L

        class GAN(L.LightningModule):
            def __init__(self, gen, disc):
                super().__init__()
                self.gen = gen
                self.disc = disc
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                opt_g, opt_d = self.optimizers()
                z = torch.randn(batch.size(0), 64, device=self.device)
                fake = self.gen(z)
                d_loss = self.disc(fake.detach()).mean() - self.disc(batch).mean()
                opt_d.zero_grad()
                self.manual_backward(d_loss)
                opt_d.step()
                g_loss = -self.disc(fake).mean()
                opt_g.zero_grad()
                self.manual_backward(g_loss)
                opt_g.step()

            def validation_step(self, batch, batch_idx):
                with torch.no_grad():
                    self.log("val", self.disc(batch).mean())

            def configure_optimizers(self):
                return [torch.optim.Adam(self.gen.parameters()), torch.optim.Adam(self.disc.parameters())]
        """,
    "reinforce_with_env_step": """
        import torch
        from torch.distributions import Categorical

        def reinforce(env, policy, episodes=500, gamma=0.99):
            optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
            for episode in range(episodes):
                obs, _ = env.reset()
                log_probs, rewards = [], []
                done = False
                while not done:
                    dist = Categorical(logits=policy(torch.as_tensor(obs)))
                    action = dist.sample()
                    obs, reward, terminated, truncated, _ = env.step(action.item())
                    log_probs.append(dist.log_prob(action))
                    rewards.append(reward)
                    done = terminated or truncated
                returns, g = [], 0.0
                for r in reversed(rewards):
                    g = r + gamma * g
                    returns.insert(0, g)
                returns = torch.tensor(returns)
                returns = (returns - returns.mean()) / (returns.std() + 1e-8)
                loss = -(torch.stack(log_probs) * returns).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        """,
    "deepspeed_engine": """
        import deepspeed

        def train(model, loader, args):
            engine, optimizer, _, scheduler = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
            engine.train()
            for batch in loader:
                loss = engine(batch)
                engine.backward(loss)
                engine.step()
        """,
    "trainer_class_with_callbacks_and_eval": """
        import torch
        from torch import nn, optim

        class Trainer:
            def __init__(self, model, train_loader, val_loader, epochs):
                self.model = model
                self.train_loader, self.val_loader = train_loader, val_loader
                self.criterion = nn.CrossEntropyLoss()
                self.optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
                self.scheduler = optim.lr_scheduler.MultiStepLR(self.optimizer, milestones=[30, 60], gamma=0.1)
                self.epochs = epochs

            def _train_epoch(self):
                self.model.train()
                for x, y in self.train_loader:
                    self.optimizer.zero_grad()
                    loss = self.criterion(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()

            @torch.no_grad()
            def _validate(self):
                self.model.eval()
                correct = 0
                for x, y in self.val_loader:
                    correct += (self.model(x).argmax(1) == y).sum().item()
                return correct

            def fit(self):
                best = 0
                for epoch in range(self.epochs):
                    self._train_epoch()
                    best = max(best, self._validate())
                    self.scheduler.step()
                return best
        """,
}


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_training_code_has_no_findings(name):
    assert reported(CLEAN[name]) == set()
