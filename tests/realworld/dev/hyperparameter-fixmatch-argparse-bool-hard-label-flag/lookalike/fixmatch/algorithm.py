import copy

import torch

from .losses import ce_loss, consistency_loss


class FixMatch:
    def __init__(self, net, optimizer, scheduler, T, p_cutoff, lambda_u, hard_label=True, ema_m=0.999):
        self.net = net
        self.ema_net = copy.deepcopy(net).eval()
        for p in self.ema_net.parameters():
            p.requires_grad_(False)
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.T = T
        self.p_cutoff = p_cutoff
        self.lambda_u = lambda_u
        self.use_hard_label = hard_label
        self.ema_m = ema_m

    @torch.no_grad()
    def _update_ema(self):
        for e, p in zip(self.ema_net.parameters(), self.net.parameters()):
            e.mul_(self.ema_m).add_(p.detach(), alpha=1 - self.ema_m)
        for e, b in zip(self.ema_net.buffers(), self.net.buffers()):
            e.copy_(b)

    def train_step(self, x_lb, y_lb, x_ulb_w, x_ulb_s):
        num_lb = x_lb.shape[0]
        inputs = torch.cat([x_lb, x_ulb_w, x_ulb_s])
        logits = self.net(inputs)
        logits_x_lb = logits[:num_lb]
        logits_x_ulb_w, logits_x_ulb_s = logits[num_lb:].chunk(2)

        sup_loss = ce_loss(logits_x_lb, y_lb, reduction="mean")
        unsup_loss, mask_ratio = consistency_loss(
            logits_x_ulb_s, logits_x_ulb_w,
            T=self.T, p_cutoff=self.p_cutoff, use_hard_labels=self.use_hard_label,
        )
        total = sup_loss + self.lambda_u * unsup_loss

        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        self.scheduler.step()
        self._update_ema()
        return {"sup": sup_loss.item(), "unsup": unsup_loss.item(), "mask": mask_ratio.item()}

    @torch.no_grad()
    def evaluate(self, loader, device):
        correct = total = 0
        for x, y in loader:
            pred = self.ema_net(x.to(device)).argmax(dim=1)
            correct += (pred == y.to(device)).sum().item()
            total += y.numel()
        return correct / total
