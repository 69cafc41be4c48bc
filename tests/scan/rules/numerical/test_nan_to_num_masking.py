"""The ``nan-to-num-masking`` rule (``mlsleuth/scan/rules/numerical/nan_to_num_masking.py``)."""

from __future__ import annotations

from scan.helpers import hits, line


def test_nan_to_num_on_loss_logits_and_grads():
    src = """
    import torch

    def step(model, x, y, crit, opt):
        logits = model(x)
        logits = torch.nan_to_num(logits)  # <- logits
        loss = crit(logits, y).nan_to_num(nan=0.0)  # <- loss
        loss.backward()
        for p in model.parameters():
            if p.grad is not None:
                p.grad.nan_to_num_()  # <- grad
        opt.step()
    """
    assert hits(src, "nan-to-num-masking") == {
        ("nan-to-num-masking", line(src, "# <- logits")),
        ("nan-to-num-masking", line(src, "# <- loss")),
        ("nan-to-num-masking", line(src, "# <- grad")),
    }


def test_nan_to_num_on_input_features_is_fine():
    src = """
    import numpy as np
    import torch

    def load(frame):
        features = np.nan_to_num(frame.values, nan=0.0)
        pixels = torch.nan_to_num(torch.from_numpy(features))
        return pixels
    """
    assert hits(src, "nan-to-num-masking") == set()


def test_nan_to_num_on_numpy_image_gradients_is_fine():
    src = """
    import numpy as np

    def edges(img):
        gy, gx = np.gradient(img)
        gradient_mag = np.hypot(gx, gy)
        return np.nan_to_num(gradient_mag / gradient_mag.max())
    """
    assert hits(src, "nan-to-num-masking") == set()
