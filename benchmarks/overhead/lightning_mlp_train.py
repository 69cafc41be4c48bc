"""Benchmark workload: a Lightning MLP classifier on CPU that times its own training steps.

``python lightning_mlp_train.py STEPS HIDDEN WARMUP MODE`` with MODE ``plain`` or ``callback`` (fit with
mlsleuth's MlsleuthCallback). Writes ``{"per_step_s": median}`` over the steps from WARMUP on to the
file named by ``BENCH_TIMING`` (and ``per_step_cpu_s``, the same in process CPU time). Under ``mlsleuth trace`` run it with MODE ``plain``.
"""

import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning as L


class Timer(L.Callback):
    """Wall time and this process's CPU time of each training step (CPU time is robust on a busy machine)."""

    def __init__(self):
        self.times, self.cpu, self._t, self._c = [], [], 0.0, 0.0

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self._t, self._c = time.perf_counter(), time.process_time()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.times.append(time.perf_counter() - self._t)
        self.cpu.append(time.process_time() - self._c)


class MLP(L.LightningModule):
    def __init__(self, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main():
    steps, hidden, warmup, mode = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    torch.manual_seed(0)
    x = torch.randn(64 * steps, 32)
    y = (x[:, :4]).argmax(1)
    loader = DataLoader(TensorDataset(x, y), batch_size=64)
    timer = Timer()
    callbacks = [timer]
    if mode == "callback":
        from mlsleuth.integrations.lightning import MlsleuthCallback

        callbacks.append(MlsleuthCallback(report_path=None, print_report=False))
    trainer = L.Trainer(accelerator="cpu", devices=1, max_steps=steps, enable_progress_bar=False, logger=False,
                        enable_checkpointing=False, enable_model_summary=False, callbacks=callbacks)
    trainer.fit(MLP(hidden), loader)
    with open(os.environ["BENCH_TIMING"], "w") as fh:
        json.dump({"per_step_s": statistics.median(timer.times[warmup:]), "per_step_cpu_s": statistics.median(timer.cpu[warmup:]),
                   "steps": len(timer.times)}, fh)


if __name__ == "__main__":
    main()
