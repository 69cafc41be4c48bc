import torch


def nt_xent_loss(out_1, out_2, temperature=0.5):
    """Normalised-temperature cross entropy over the 2N projected views.

    out_1, out_2: (N, D) L2-normalised projections of two augmentations of the same batch.
    Each view's positive is the other view of the same image; the other image's views in the
    opposite augmentation are negatives (the symmetric InfoNCE used by CLIP-style objectives).
    """
    # cross-view similarities only: row i of sim holds view-1 image i against every view-2 image
    sim = torch.exp(torch.mm(out_1, out_2.t().contiguous()) / temperature)
    neg = sim.sum(dim=-1)
    neg_t = sim.sum(dim=0)

    pos = torch.diagonal(sim)

    return -0.5 * (torch.log(pos / neg) + torch.log(pos / neg_t)).mean()
