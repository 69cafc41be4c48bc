"""The ``permutation-drawn-once`` rule (``mlsleuth/scan/rules/reproducibility/permutation_drawn_once.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"permutation-drawn-once"}


def test_order_drawn_before_the_epoch_loop():
    src = """
        import random
        import numpy as np
        import torch

        def train(model, opt, X, Y, epochs, bs):
            perm = np.random.default_rng(0).permutation(len(X))  # expect: permutation-drawn-once
            for epoch in range(epochs):
                for start in range(0, len(perm), bs):
                    idx = perm[start:start + bs]
                    loss = model(X[idx], Y[idx])
                    opt.zero_grad()
                    loss.backward()
                    opt.step()

        def train_list(model, opt, samples, epochs):
            order = list(range(len(samples)))
            random.shuffle(order)  # expect: permutation-drawn-once
            epoch = 0
            while epoch < epochs:
                for i in order:
                    model(samples[i]).backward()
                    opt.step()
                    opt.zero_grad()
                epoch += 1
        """
    check(src, RULE)


def test_redrawn_each_epoch_single_pass_or_evaluation_stay_silent():
    src = """
        import random
        import torch

        def redrawn(model, opt, X, epochs, bs):
            g = torch.Generator().manual_seed(0)
            for epoch in range(epochs):
                perm = torch.randperm(len(X), generator=g)
                for i in range(0, len(X), bs):
                    model(X[perm[i:i + bs]]).backward()
                    opt.step()

        def reshuffled_in_place(model, opt, items, epochs):
            order = list(range(len(items)))
            random.shuffle(order)
            for epoch in range(epochs):
                random.shuffle(order)
                for i in order:
                    model(items[i]).backward()
                    opt.step()

        def one_pass(model, opt, X, bs):
            perm = torch.randperm(len(X))
            for i in range(0, len(X), bs):
                model(X[perm[i:i + bs]]).backward()
                opt.step()

        @torch.no_grad()
        def evaluate(model, X, repeats, bs):
            perm = torch.randperm(len(X))
            scores = []
            for r in range(repeats):
                for i in range(0, len(X), bs):
                    scores.append(model(X[perm[i:i + bs]]))
            return scores

        def split_once(model, opt, X, epochs, loader_for):
            perm = torch.randperm(len(X))
            train_idx = perm[: int(0.9 * len(X))]
            for epoch in range(epochs):
                for xb in loader_for(train_idx):
                    model(xb).backward()
                    opt.step()
        """
    check(src, RULE)
