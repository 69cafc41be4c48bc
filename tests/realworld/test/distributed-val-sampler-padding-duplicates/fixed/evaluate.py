import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


@torch.no_grad()
def distributed_accuracy(clf, dataset, world_size, batch_size=4):
    """Evaluate the way each rank would under DDP, then merge the per-rank results."""
    clf.eval()
    per_rank = []
    for rank in range(world_size):
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=False)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
        hits = [(clf(x).argmax(1) == y) for x, y in loader]
        per_rank.append(torch.cat(hits))
    # all_gather-style merge: interleave back into dataset order
    merged = torch.stack(per_rank, dim=1).reshape(-1)
    correct = merged[: len(dataset)]
    return correct.float().mean().item(), correct.numel()
