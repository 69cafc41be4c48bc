import torch
import torch.autograd as autograd
import torch.nn.functional as F
from torch import nn

from networks import MLP

ALGORITHMS = ["ERM", "SAM"]


def get_algorithm_class(name):
    if name not in globals():
        raise NotImplementedError(f"Algorithm not found: {name}")
    return globals()[name]


class Algorithm(nn.Module):
    def __init__(self, input_shape, num_classes, num_domains, hparams):
        super().__init__()
        self.hparams = hparams

    def update(self, minibatches, unlabeled=None):
        raise NotImplementedError

    def predict(self, x):
        raise NotImplementedError


class ERM(Algorithm):
    def __init__(self, input_shape, num_classes, num_domains, hparams):
        super().__init__(input_shape, num_classes, num_domains, hparams)
        self.network = MLP(input_shape[0], num_classes, hparams)
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=hparams["lr"],
                                          weight_decay=hparams["weight_decay"])

    def update(self, minibatches, unlabeled=None):
        all_x = torch.cat([x for x, _ in minibatches])
        all_y = torch.cat([y for _, y in minibatches])
        loss = F.cross_entropy(self.predict(all_x), all_y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.item()}

    def predict(self, x):
        return self.network(x)


class SAM(ERM):
    """Sharpness-Aware Minimization (Foret et al., 2021)."""

    def update(self, minibatches, unlabeled=None):
        all_x = torch.cat([x for x, _ in minibatches])
        all_y = torch.cat([y for _, y in minibatches])

        # 1. gradient at the current weights, only used to build the ascent step
        loss = F.cross_entropy(self.predict(all_x), all_y)
        grad_w = autograd.grad(loss, self.network.parameters())
        scale = self.hparams["rho"] / (torch.norm(torch.stack([g.norm(2) for g in grad_w])) + 1e-12)
        eps = [g * scale for g in grad_w]
        with torch.no_grad():
            for p, e in zip(self.network.parameters(), eps):
                p.add_(e)

        # 2. gradient at the perturbed weights is the one applied to the original weights
        loss_adv = F.cross_entropy(self.predict(all_x), all_y)
        self.optimizer.zero_grad()
        loss_adv.backward()
        with torch.no_grad():
            for p, e in zip(self.network.parameters(), eps):
                p.sub_(e)
        self.optimizer.step()
        return {"loss": loss.item(), "loss_adv": loss_adv.item()}
