"""Parameter / gradient synchronisation helpers for the multi-worker trainer."""
import torch
import torch.distributed as dist


def _flat(tensors):
    return torch.cat([t.reshape(-1) for t in tensors])


def _write_back(flat, tensors):
    offset = 0
    for t in tensors:
        n = t.numel()
        t.copy_(flat[offset:offset + n].view_as(t))
        offset += n


@torch.no_grad()
def sync_networks(network):
    """Give every worker the parameters of worker 0."""
    params = list(network.parameters())
    flat = _flat(params)
    dist.broadcast(flat, src=0)
    _write_back(flat, params)


@torch.no_grad()
def sync_grads(network):
    """Combine the gradients computed by every worker before the optimizer step."""
    params = [p for p in network.parameters() if p.grad is not None]
    flat = _flat([p.grad for p in params])
    dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    flat /= dist.get_world_size()
    _write_back(flat, [p.grad for p in params])
