import torch


def nt_xent_loss(out_1, out_2, temperature=0.5):
    """Normalised-temperature cross entropy over the 2N projected views.

    out_1, out_2: (N, D) L2-normalised projections of two augmentations of the same batch.
    Each view's positive is the other view of the same image; the remaining 2N - 2 views are negatives.
    """
    out = torch.cat([out_1, out_2], dim=0)
    sim = torch.exp(torch.mm(out, out.t().contiguous()) / temperature)
    self_mask = torch.eye(out.size(0), dtype=torch.bool, device=out.device)
    neg = sim.masked_fill(self_mask, 0.0).sum(dim=-1)

    pos = torch.exp(torch.sum(out_1 * out_2, dim=-1) / temperature)
    pos = torch.cat([pos, pos], dim=0)

    return -torch.log(pos / neg).mean()
