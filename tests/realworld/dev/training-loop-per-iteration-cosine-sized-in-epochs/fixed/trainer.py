import torch

from config import TrainConfig
from schedulers import get_scheduler


class SurfaceTrainer:
    def __init__(self, model, loss_fn, train_loader, cfg: TrainConfig):
        self.model = model
        self.loss_fn = loss_fn
        self.train_loader = train_loader
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.initial_lr, weight_decay=cfg.weight_decay)
        self.scheduler = get_scheduler(cfg.scheduler, self.optimizer, max_steps=cfg.max_epoch * cfg.max_steps_per_epoch,
                                       warmup_fraction=cfg.warmup_fraction)

    def train_epoch(self, epoch):
        self.model.train()
        running = 0.0
        for i, (volume, label) in enumerate(self.train_loader):
            if i >= self.cfg.max_steps_per_epoch:
                break
            self.optimizer.zero_grad(set_to_none=True)
            loss = self.loss_fn(self.model(volume), label)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 12.0)
            self.optimizer.step()
            self.scheduler.step()
            running += loss.item()
        return running / max(1, i)

    def fit(self):
        for epoch in range(self.cfg.max_epoch):
            loss = self.train_epoch(epoch)
            print(f"epoch {epoch} loss {loss:.4f} lr {self.optimizer.param_groups[0]['lr']:.2e}")
