import torch


def softmax(x, dim=-1, mask=None):
    e = torch.exp(x)
    if mask is not None:
        e = e * mask
    return e / e.sum(dim=dim, keepdim=True)


def masked_log_softmax(x, mask, dim=-1):
    return torch.log(softmax(x, dim=dim, mask=mask) + 1e-20)
