"""The ``nan-to-num-masking`` rule (``mlsleuth/scan/rules/numerical/nan_to_num_masking.py``)."""

from __future__ import annotations

from scan.helpers import check


def test_nan_to_num_on_loss_logits_and_grads():
    src = """
    import torch

    def step(model, x, y, crit, opt):
        logits = model(x)
        logits = torch.nan_to_num(logits)  # expect: nan-to-num-masking
        loss = crit(logits, y).nan_to_num(nan=0.0)  # expect: nan-to-num-masking
        loss.backward()
        for p in model.parameters():
            if p.grad is not None:
                p.grad.nan_to_num_()  # expect: nan-to-num-masking
        opt.step()
    """
    check(src, {'nan-to-num-masking'})


def test_nan_to_num_on_input_features_is_fine():
    src = """
    import numpy as np
    import torch

    def load(frame):
        features = np.nan_to_num(frame.values, nan=0.0)
        pixels = torch.nan_to_num(torch.from_numpy(features))
        return pixels
    """
    check(src, {'nan-to-num-masking'})


def test_nan_to_num_on_numpy_image_gradients_is_fine():
    src = """
    import numpy as np

    def edges(img):
        gy, gx = np.gradient(img)
        gradient_mag = np.hypot(gx, gy)
        return np.nan_to_num(gradient_mag / gradient_mag.max())
    """
    check(src, {'nan-to-num-masking'})
