import torch


def softmax(x, dim=-1, mask=None):
    e = torch.exp(x - x.max(dim=dim, keepdim=True).values.detach())
    if mask is not None:
        e = e * mask
    return e / e.sum(dim=dim, keepdim=True)


def masked_log_softmax(x, mask, dim=-1):
    x = x.masked_fill(mask == 0, torch.finfo(x.dtype).min)
    return torch.log_softmax(x, dim=dim)
