"""Single-process stand-in for DistributedDataParallel: one model copy per rank,
gradients averaged across copies after backward unless inside no_sync()."""
import contextlib
import copy

import torch


class ReplicaGroup:
    def __init__(self, module, world_size):
        self.world_size = world_size
        self.replicas = [copy.deepcopy(module) for _ in range(world_size)]
        self._sync = True

    @contextlib.contextmanager
    def no_sync(self):
        prev = self._sync
        self._sync = False
        try:
            yield
        finally:
            self._sync = prev

    def backward(self, losses):
        for loss in losses:
            loss.backward()
        if self._sync:
            self._allreduce_grads()

    def _allreduce_grads(self):
        for params in zip(*[r.parameters() for r in self.replicas]):
            avg = torch.stack([p.grad for p in params]).mean(0)
            for p in params:
                p.grad.copy_(avg)

    def max_divergence(self):
        ref = list(self.replicas[0].parameters())
        worst = 0.0
        for other in self.replicas[1:]:
            for a, b in zip(ref, other.parameters()):
                worst = max(worst, (a - b).abs().max().item())
        return worst
