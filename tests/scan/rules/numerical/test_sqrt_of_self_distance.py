"""The ``sqrt-of-self-distance`` rule (``mlsleuth/scan/rules/numerical/sqrt_of_self_distance.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = {"sqrt-of-self-distance"}


def test_inline_pairwise_distances_in_loss_functions_and_classes():
    src = """
        import torch
        import torch.nn as nn

        def batch_hard_triplet_loss(emb, labels, margin=0.3):
            dist = torch.sqrt(torch.sum((emb.unsqueeze(0) - emb.unsqueeze(1)) ** 2, dim=2))  # expect: sqrt-of-self-distance
            same = labels[:, None] == labels[None, :]
            hardest_pos = (dist * same).max(1).values
            hardest_neg = (dist + 1e6 * same).min(1).values
            return torch.relu(hardest_pos - hardest_neg + margin).mean()

        class CenterSpreadLoss(nn.Module):
            def forward(self, feats):
                d = (feats[:, None, :] - feats[None, :, :]).pow(2).sum(-1) ** 0.5  # expect: sqrt-of-self-distance
                return -d.mean()

        def compute_loss(z):
            diff = z.view(-1, 1, z.size(-1)) - z.view(1, -1, z.size(-1))
            sq = torch.square(diff).sum(-1)
            return sq.pow(0.5).mean()  # expect: sqrt-of-self-distance
        """
    check(src, RULE)
    (f,) = [m for m in findings(src, "sqrt-of-self-distance") if m.location.line == 5]
    assert "emb.unsqueeze(0) - emb.unsqueeze(1)" in f.observation


def test_a_distance_helper_called_with_one_tensor_twice_from_a_loss_in_another_file(tmp_path):
    files = {
        "geometry.py": """
            def pairwise(a, b):
                d = a[:, None] - b[None]
                return (d * d).sum(-1).sqrt()  # expect: sqrt-of-self-distance
        """,
        "losses.py": """
            import torch.nn.functional as F
            from geometry import pairwise

            def contrastive_objective(emb, labels, margin=1.0):
                d = pairwise(emb, emb)
                same = (labels[:, None] == labels[None]).float()
                return (same * d ** 2 + (1 - same) * F.relu(margin - d) ** 2).mean()
        """,
    }
    check_project(tmp_path, files, RULE)


def test_guarded_roots_norms_and_two_different_sets_stay_silent():
    src = """
        import torch

        def pairwise(a, b):
            return ((a.unsqueeze(1) - b.unsqueeze(0)) ** 2).sum(-1).sqrt()

        def triplet_loss(anchor, positive, negative, queries, keys, margin=0.2):
            d_ap = ((anchor - positive) ** 2).sum(1).sqrt()
            d_an = ((anchor - negative) ** 2).sum(1).sqrt()
            cross = pairwise(queries, keys)
            eps_root = (((anchor[:, None] - anchor[None]) ** 2).sum(-1) + 1e-12).sqrt()
            clamped = ((anchor[:, None] - anchor[None]) ** 2).sum(-1).clamp_min(1e-12).sqrt()
            normed = (anchor[:, None] - anchor[None]).norm(dim=-1)
            cd = torch.cdist(anchor, anchor)
            return (torch.relu(d_ap - d_an + margin) + cross.mean() + eps_root.mean() + clamped.mean() + normed.mean() + cd.mean()).mean()
        """
    check(src, RULE)


def test_distances_outside_a_loss_or_without_gradients_stay_silent():
    src = """
        import torch

        def radius_graph(pos, cutoff):
            dist = ((pos[:, None] - pos[None]) ** 2).sum(-1).sqrt()
            return (dist < cutoff).nonzero()

        @torch.no_grad()
        def embedding_spread_loss_metric(emb):
            return ((emb[:, None] - emb[None]) ** 2).sum(-1).sqrt().mean().item()

        def chamfer_loss(pred, gt):
            return ((pred[:, None] - gt[None]) ** 2).sum(-1).sqrt().min(1).values.mean()
        """
    check(src, RULE)
