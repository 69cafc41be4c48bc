"""Tag frequencies of the synthetic catalogue (to pick focal_alpha / check imbalance)."""
from __future__ import annotations

import argparse

import torch

from tagger.config import Config
from tagger.data import make_catalogue


def tag_frequencies(tags: torch.Tensor) -> torch.Tensor:
    return tags.mean(dim=0)


def co_occurrence(tags: torch.Tensor) -> torch.Tensor:
    counts = tags.T @ tags
    diag = counts.diag().clamp(min=1)
    return counts / diag[:, None]


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=Config.n_items)
    p.add_argument("--seed", type=int, default=Config.seed)
    args = p.parse_args(argv)
    cfg = Config()
    _, tags = make_catalogue(args.n, cfg.n_features, cfg.n_tags, args.seed)
    freq = tag_frequencies(tags)
    print(f"items: {args.n}, tags per item: {tags.sum(1).mean():.2f}, items without tags: {(tags.sum(1) == 0).float().mean():.2%}")
    for k, f in enumerate(freq.tolist()):
        bar = "#" * int(f * 100)
        print(f"tag {k:2d}: {f:7.2%} {bar}")
    co = co_occurrence(tags)
    strongest = torch.topk((co - torch.eye(len(co))).flatten(), 3)
    for value, flat in zip(strongest.values.tolist(), strongest.indices.tolist()):
        i, j = divmod(flat, len(co))
        print(f"P(tag {j} | tag {i}) = {value:.2f}")


if __name__ == "__main__":
    main()
