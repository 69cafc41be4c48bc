"""Curriculum trainer: runs each stage in turn, optionally under DistributedDataParallel."""
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from model import TSLanguageModel


class CurriculumTrainer:
    def __init__(self, stages, batch_size=16, lr=3e-4, save_dir="checkpoints"):
        self.stages = stages
        self.batch_size = batch_size
        self.lr = lr
        self.save_dir = save_dir
        self.distributed = dist.is_available() and dist.is_initialized()
        self.rank = dist.get_rank() if self.distributed else 0
        self.world_size = dist.get_world_size() if self.distributed else 1
        self.model = self._initialize_model()

    def _initialize_model(self):
        model = TSLanguageModel()
        if self.distributed:
            model = DDP(model)
        return model

    def _get_model(self):
        return self.model.module if isinstance(self.model, DDP) else self.model

    def _make_loader(self, dataset, epoch):
        sampler = DistributedSampler(dataset, self.world_size, self.rank, shuffle=True) if self.distributed else None
        if sampler is not None:
            sampler.set_epoch(epoch)
        return DataLoader(dataset, batch_size=self.batch_size, sampler=sampler, shuffle=sampler is None)

    def _train_stage(self, name, dataset, epochs):
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.lr)
        for epoch in range(epochs):
            self.model.train()
            total, steps = 0.0, 0
            for batch in self._make_loader(dataset, epoch):
                optimizer.zero_grad()
                loss = self._get_model().compute_loss(batch)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                optimizer.step()
                total += loss.item()
                steps += 1
            if self.rank == 0:
                print(f"[{name}] epoch {epoch}: loss {total / max(steps, 1):.4f}")
        self._save_checkpoint(name)

    def _save_checkpoint(self, name):
        if self.rank == 0:
            os.makedirs(self.save_dir, exist_ok=True)
            torch.save(self._get_model().state_dict(), os.path.join(self.save_dir, f"{name}.pt"))
        if self.distributed:
            dist.barrier()

    def run_curriculum(self):
        for name, dataset, epochs in self.stages:
            self._train_stage(name, dataset, epochs)
