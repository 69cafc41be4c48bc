import torch
import torch.nn.functional as F


def fgsm(model, x, y_soft, eps=0.3, clip_min=0.0, clip_max=1.0):
    x_adv = x.clone().detach().requires_grad_(True)
    logits = model(x_adv)
    loss = F.cross_entropy(logits, y_soft.argmax(1))
    grad, = torch.autograd.grad(loss, x_adv)
    x_adv = x_adv + eps * grad.sign()
    return x_adv.clamp(clip_min, clip_max).detach()
