import torch


def retrieval_recall(sim: torch.Tensor, relevant: torch.Tensor, ks=(1, 5)) -> dict:
    """sim[q, c]: query-candidate similarity; relevant[q, c]: True where candidate c is a correct
    answer for query q (several candidates can be correct when captions share all attributes)."""
    order = sim.argsort(dim=1, descending=True)
    hits = torch.gather(relevant, 1, order)
    return {f"R@{k}": float(hits[:, :k].any(dim=1).float().mean()) for k in ks}


def bidirectional_recall(audio_embed, text_embed, attrs, ks=(1, 5)) -> dict:
    sim = audio_embed @ text_embed.t()
    relevant = (attrs.unsqueeze(1) == attrs.unsqueeze(0)).all(-1)
    out = {f"a2t_{k}": v for k, v in retrieval_recall(sim, relevant, ks).items()}
    out.update({f"t2a_{k}": v for k, v in retrieval_recall(sim.t(), relevant.t(), ks).items()})
    return out
