import horovod.torch as hvd
import torch


class Metric:
    """Running average of a scalar, averaged over all Horovod workers."""

    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.0)
        self.n = torch.tensor(0.0)

    def update(self, val):
        self.sum += hvd.allreduce(val.detach().cpu(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return (self.sum / self.n).item()


def accuracy(output, target):
    return output.argmax(dim=1).eq(target).float().mean()
