"""Loss-balancing methods for multi-task training."""
import torch
import torch.nn.functional as F


class WeightMethod:
    def __init__(self, n_tasks, device, max_norm=1.0):
        self.n_tasks = n_tasks
        self.device = device
        self.max_norm = max_norm

    def get_weighted_loss(self, losses):
        raise NotImplementedError

    def backward(self, losses, shared_parameters=None):
        raise NotImplementedError

    def update(self, curr_losses):
        pass


class LinearScalarization(WeightMethod):
    def get_weighted_loss(self, losses):
        return losses.sum()

    def backward(self, losses, shared_parameters=None):
        loss = self.get_weighted_loss(losses)
        loss.backward()
        if self.max_norm > 0 and shared_parameters is not None:
            torch.nn.utils.clip_grad_norm_(shared_parameters, self.max_norm)
        return loss


class FastAdaptiveWeighting(WeightMethod):
    """Keeps task logits w and moves them so that every task's log-loss drops at a similar rate."""

    def __init__(self, n_tasks, device, max_norm=1.0, gamma=1e-3, w_lr=0.025):
        super().__init__(n_tasks, device, max_norm)
        self.min_losses = torch.zeros(n_tasks, device=device)
        self.w = torch.zeros(n_tasks, device=device, requires_grad=True)
        self.w_opt = torch.optim.Adam([self.w], lr=w_lr, weight_decay=gamma)
        self.prev_losses = None

    def get_weighted_loss(self, losses):
        self.prev_losses = losses.detach()
        z = F.softmax(self.w, dim=-1)
        gap = losses - self.min_losses + 1e-8
        norm = (z / gap).sum().detach()
        return (gap.log() * z / norm).sum()

    def backward(self, losses, shared_parameters=None):
        loss = self.get_weighted_loss(losses)
        if self.max_norm > 0 and shared_parameters is not None:
            torch.nn.utils.clip_grad_norm_(shared_parameters, self.max_norm)
        loss.backward()
        return loss

    def update(self, curr_losses):
        delta = (self.prev_losses + 1e-8).log() - (curr_losses.detach() + 1e-8).log()
        with torch.enable_grad():
            grad_w = torch.autograd.grad(F.softmax(self.w, dim=-1), self.w, grad_outputs=delta)[0]
        self.w_opt.zero_grad()
        self.w.grad = grad_w
        self.w_opt.step()


METHODS = {"ls": LinearScalarization, "famo": FastAdaptiveWeighting}


def build_weight_method(name, n_tasks, device, **kwargs):
    return METHODS[name](n_tasks=n_tasks, device=device, **kwargs)
