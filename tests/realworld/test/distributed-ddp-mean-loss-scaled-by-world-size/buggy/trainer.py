"""Epoch runner shared by single-process and DistributedDataParallel training."""
import torch
import torch.distributed as dist


class ModuleTrainer:
    def __init__(self, module, loss_fn, optimizer, device, world_size=1, log_every=20):
        self.module = module
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.device = device
        self.world_size = world_size
        self.log_every = log_every

    def _reduce_for_logging(self, value):
        value = value.detach().clone()
        if self.world_size > 1:
            dist.all_reduce(value)
            value /= self.world_size
        return value.item()

    def run_epoch(self, loader, epoch):
        self.module.train()
        for step, (inputs, labels) in enumerate(loader):
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            outputs = self.module(inputs)
            loss = self.loss_fn(outputs, labels)
            if self.world_size > 1:
                loss = loss * self.world_size
            loss.backward()
            self.optimizer.step()
            if step % self.log_every == 0:
                logged = self._reduce_for_logging(loss)
                if not dist.is_initialized() or dist.get_rank() == 0:
                    print(f"epoch {epoch} step {step}: loss {logged:.4f}")

    @torch.no_grad()
    def evaluate(self, loader):
        self.module.eval()
        correct = torch.zeros(2, device=self.device)
        for inputs, labels in loader:
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            preds = self.module(inputs).argmax(dim=1)
            correct += torch.stack([(preds == labels).sum().float(), torch.tensor(float(labels.numel()))])
        return (correct[0] / correct[1]).item()
