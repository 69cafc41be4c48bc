"""Gaussian target heatmaps and peak extraction for keypoint detection."""
import torch


def generate_channel_heatmap(image_size, keypoints, sigma, device="cpu"):
    """One heatmap channel holding a Gaussian blob for every keypoint of one type.

    image_size: (height, width); keypoints: tensor (N, 2) of (u, v) pixel coordinates.
    """
    height, width = image_size
    yy, xx = torch.meshgrid(
        torch.arange(height, device=device, dtype=torch.float32),
        torch.arange(width, device=device, dtype=torch.float32),
        indexing="ij",
    )
    heatmap = torch.zeros(height, width, device=device)
    for u, v in keypoints.tolist():
        blob = torch.exp(-((xx - u) ** 2 + (yy - v) ** 2) / (2 * sigma ** 2))
        heatmap = torch.maximum(heatmap, blob)
    return heatmap


def heatmap_peaks(heatmap, threshold=0.1, max_keypoints=20, window=7):
    """Local maxima of a (H, W) heatmap, returned as (u, v) pixel coordinates."""
    pooled = torch.nn.functional.max_pool2d(
        heatmap[None, None], kernel_size=window, stride=1, padding=window // 2
    )[0, 0]
    is_peak = (heatmap == pooled) & (heatmap > threshold)
    rows, cols = torch.nonzero(is_peak, as_tuple=True)
    scores = heatmap[rows, cols]
    order = torch.argsort(scores, descending=True)[:max_keypoints]
    return torch.stack([cols[order], rows[order]], dim=1)
