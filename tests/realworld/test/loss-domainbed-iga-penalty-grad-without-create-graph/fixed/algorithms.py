import torch
import torch.autograd as autograd
import torch.nn.functional as F
from torch import nn

from networks import MLP

ALGORITHMS = ["ERM", "IGA"]


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


class IGA(ERM):
    """Inter-environmental Gradient Alignment (Koyama & Yamaguchi, 2020)."""

    def update(self, minibatches, unlabeled=None):
        total_loss = 0
        grads = []
        for x, y in minibatches:
            env_loss = F.cross_entropy(self.network(x), y)
            total_loss += env_loss
            env_grad = autograd.grad(env_loss, self.network.parameters(), retain_graph=True, create_graph=True)
            grads.append(env_grad)

        mean_loss = total_loss / len(minibatches)
        mean_grad = autograd.grad(mean_loss, self.network.parameters(), retain_graph=True, create_graph=True)

        # compute trace penalty: variance of per-environment gradients
        penalty_value = 0
        for grad in grads:
            for g, mean_g in zip(grad, mean_grad):
                penalty_value += (g - mean_g).pow(2).sum()

        objective = mean_loss + self.hparams["penalty"] * penalty_value
        self.optimizer.zero_grad()
        objective.backward()
        self.optimizer.step()
        return {"loss": mean_loss.item(), "penalty": penalty_value.item()}
