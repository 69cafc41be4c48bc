import torch

from ..losses import link_bce
from ..metrics import link_metrics
from ..models.decoder import score_pairs


class Trainer:
    def __init__(self, cfg, model, datamodule, callbacks=()):
        self.cfg = cfg
        self.model = model
        self.dm = datamodule
        self.callbacks = list(callbacks)
        self.should_stop = False
        opt = cfg.optim
        self.optimizer = torch.optim.Adam(model.parameters(), lr=opt.lr,
                                          weight_decay=opt.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=opt.step_size,
                                                         gamma=opt.gamma)

    def _attach_graph(self):
        self.model.set_graph(self.dm.message_index, self.dm.num_nodes)

    def train_epoch(self) -> float:
        self.model.train()
        pos, neg = self.dm.train_pairs()
        self.optimizer.zero_grad()
        z = self.model.encode(self.dm.x)
        loss = link_bce(self.model.decoder(z, pos), self.model.decoder(z, neg),
                        pos_weight=self.cfg.train.pos_weight)
        loss.backward()
        if self.cfg.optim.grad_clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.optim.grad_clip)
        self.optimizer.step()
        self.scheduler.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, stage: str = "val") -> dict:
        self._attach_graph()
        self.model.eval()
        z = self.model.encode(self.dm.x)
        pos, neg = self.dm.eval_pairs(stage)
        pos_s = score_pairs(self.model.decoder, z, pos)
        neg_s = score_pairs(self.model.decoder, z, neg)
        return link_metrics(pos_s, neg_s, ks=tuple(self.cfg.eval.hits_k))

    def fit(self):
        self._attach_graph()
        for cb in self.callbacks:
            cb.on_fit_start(self)
        for epoch in range(1, self.cfg.train.epochs + 1):
            logs = {"loss": self.train_epoch(), "lr": self.optimizer.param_groups[0]["lr"]}
            if epoch % self.cfg.eval.every == 0:
                logs.update({f"val_{k}": v for k, v in self.evaluate("val").items()})
            for cb in self.callbacks:
                cb.on_epoch_end(self, epoch, logs)
            if self.should_stop:
                break
        for cb in self.callbacks:
            cb.on_fit_end(self)
        return self.model
