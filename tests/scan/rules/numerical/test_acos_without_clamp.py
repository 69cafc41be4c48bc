"""The ``acos-without-clamp`` rule (``mlsleuth/scan/rules/numerical/acos_without_clamp.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"acos-without-clamp"}


def test_unclamped_or_clamped_to_one_angle_losses():
    src = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    class AngularLoss(nn.Module):
        def forward(self, pred, target):
            cos = (F.normalize(pred, dim=1) * F.normalize(target, dim=1)).sum(dim=1)
            return torch.acos(cos).mean()  # expect: acos-without-clamp

    def geodesic(R1, R2):
        trace = torch.einsum("bii->b", R1 @ R2.transpose(1, 2))
        return ((trace - 1) / 2).arccos().mean()  # expect: acos-without-clamp

    def arc_margin(emb, weight):
        cos = F.linear(F.normalize(emb), F.normalize(weight))
        theta = torch.acos(cos.clamp(-1.0, 1.0))  # expect: acos-without-clamp
        return torch.cos(theta + 0.5)

    def latitude(v):
        return torch.asin(torch.clamp(v[:, 2], min=-1, max=1))  # expect: acos-without-clamp
    """
    check(src, RULE)


def test_clamped_inside_detached_or_no_grad_angles_are_fine():
    src = """
    import math
    import numpy as np
    import torch
    import torch.nn.functional as F

    EPS = 1e-7

    def angular_loss(pred, target, eps=1e-6):
        cos = F.cosine_similarity(pred, target, dim=1)
        a = torch.acos(cos.clamp(-1 + eps, 1 - eps))
        b = torch.acos(torch.clamp(cos, -1.0 + EPS, 1.0 - EPS))
        c = torch.acos((1 - eps) * torch.clamp(cos, min=-1 + eps, max=1 - eps))
        cos.clamp_(-1 + eps, 1 - eps)
        d = cos.acos()
        return (a + b + c + d).mean()

    def angle_by_atan2(a, b):
        return torch.atan2(torch.linalg.cross(a, b).norm(dim=1), (a * b).sum(1))

    @torch.no_grad()
    def angular_error_deg(pred, target):
        cos = F.cosine_similarity(pred, target, dim=1)
        return torch.rad2deg(torch.acos(cos.clamp(-1, 1))).mean()

    def log_angle(pred, target):
        with torch.no_grad():
            err = torch.acos((pred * target).sum(1))
        shown = torch.acos((pred * target).sum(1)).mean().item()
        return err, shown

    class LshExpectation(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k):
            return 1 - torch.acos(q @ k.transpose(-1, -2)) / math.pi

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    PI = torch.acos(torch.tensor(-1.0))
    HALF_PI = torch.asin(torch.tensor(1.0))
    angles = np.arccos(np.clip(np.random.rand(3), -1, 1)) + math.acos(0.5)
    """
    check(src, RULE)


def test_cosine_from_a_helper_in_another_module(tmp_path):
    files = {
        "geometry.py": """
            import torch

            def angle_between(a, b):
                cos = (a * b).sum(-1) / (a.norm(dim=-1) * b.norm(dim=-1))
                return torch.acos(cos)  # expect: acos-without-clamp
            """,
        "train.py": """
            from geometry import angle_between

            def step(model, opt, x, target):
                loss = angle_between(model(x), target).mean()
                loss.backward()
                opt.step()
            """,
    }
    check_project(tmp_path, files, RULE)


def test_half_chord_guidance_loss_and_slerp_under_no_grad_are_fine():
    # a guidance loss on unit embeddings: asin of half the distance is 0 at a match (derivative 1), and
    # an interpolation helper used only by a sampling call with gradients off
    src = """
    import torch
    import torch.nn.functional as F

    def spherical_dist(x, y):
        x, y = F.normalize(x, dim=-1), F.normalize(y, dim=-1)
        return (x - y).norm(dim=-1).div(2).arcsin().pow(2).mul(2)

    def chord_angle(a, b):
        half = torch.linalg.vector_norm(a - b, dim=-1) / 2
        return 2 * torch.asin(half)

    def slerp(t, v0, v1):
        v0n, v1n = v0 / v0.norm(), v1 / v1.norm()
        omega = torch.acos((v0n * v1n).sum())
        return (torch.sin((1 - t) * omega) * v0 + torch.sin(t * omega) * v1) / torch.sin(omega)

    class Sampler:
        @torch.no_grad()
        def __call__(self, a, b, steps=5):
            return [slerp(i / steps, a, b) for i in range(steps)]
    """
    check(src, RULE)
    # the same slerp also called from a training step (gradients on) is reported
    src2 = src.replace("""            return [slerp(i / steps, a, b) for i in range(steps)]""",
                       """            return [slerp(i / steps, a, b) for i in range(steps)]

    def mix_loss(a, b, target):
        return (slerp(0.5, a, b) - target).pow(2).mean()""").replace(
        "omega = torch.acos((v0n * v1n).sum())", "omega = torch.acos((v0n * v1n).sum())  # expect: acos-without-clamp")
    check(src2, RULE)
