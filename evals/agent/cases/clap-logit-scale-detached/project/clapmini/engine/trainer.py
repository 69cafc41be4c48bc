import torch

from ..loss import clip_loss
from ..metrics import bidirectional_recall


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader, epochs, grad_clip=1.0,
                 callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.epochs = epochs
        self.grad_clip = grad_clip
        self.callbacks = list(callbacks)
        self.step = 0
        self.epoch = 0

    def train_step(self, batch):
        out = self.model(batch)
        loss = clip_loss(out["audio_embed"], out["text_embed"], out["logit_scale"])
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.grad_clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        self.optimizer.step()
        self.step += 1
        for cb in self.callbacks:
            cb.on_step_end(self)
        return loss.item()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        audio, text, index = [], [], []
        for batch in self.val_loader:
            audio.append(self.model.encode_audio(batch["audio"]))
            text.append(self.model.encode_text(batch["tokens"], batch["pad_mask"]))
            index.append(batch["index"])
        attrs = self.val_loader.dataset.attrs[torch.cat(index)]
        metrics = bidirectional_recall(torch.cat(audio), torch.cat(text), attrs)
        metrics["mean_R@1"] = 0.5 * (metrics["a2t_R@1"] + metrics["t2a_R@1"])
        return metrics

    def fit(self):
        for self.epoch in range(1, self.epochs + 1):
            self.model.train()
            total, n = 0.0, 0
            for batch in self.train_loader:
                total += self.train_step(batch)
                n += 1
            logs = {"loss": total / max(1, n), "lr": self.optimizer.param_groups[0]["lr"]}
            logs.update({f"val_{k}": v for k, v in self.evaluate().items()})
            for cb in self.callbacks:
                cb.on_epoch_end(self, logs)
        return self.model
