"""Segmentation metrics for object-centric models (per frame, over a video)."""

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score


def to_one_hot(ids, num):
    """ids: [N] integer segment ids -> [N, num] float one-hot."""
    return torch.nn.functional.one_hot(ids.long(), num).float()


def pairwise_overlap(true_oh, pred_oh):
    """true_oh: [N, G], pred_oh: [N, P] -> Dice matrix [G, P]."""
    intersection = true_oh.t() @ pred_oh
    total = true_oh.sum(0)[:, None] + pred_oh.sum(0)[None, :]
    return 2 * intersection / total.clamp_min(1.0)


def hungarian_mdice(gt_ids, pred_ids, num_gt, num_pred, ignore_background=True):
    """Match predicted slots to ground-truth objects and average the matched Dice scores."""
    true_oh = to_one_hot(gt_ids.flatten(), num_gt)
    pred_oh = to_one_hot(pred_ids.flatten(), num_pred)
    if ignore_background:
        true_oh = true_oh[:, 1:]
    present = true_oh.sum(0) > 0
    true_oh = true_oh[:, present]
    if true_oh.shape[1] == 0:
        return float("nan")
    dice = pairwise_overlap(true_oh, pred_oh)
    rows, cols = linear_sum_assignment(-dice.numpy())
    return float(dice[rows, cols].sum() / true_oh.shape[1])


def fg_ari(gt_ids, pred_ids):
    gt = gt_ids.flatten().numpy()
    pred = pred_ids.flatten().numpy()
    fg = gt > 0
    if fg.sum() == 0:
        return float("nan")
    return adjusted_rand_score(gt[fg], pred[fg])


def video_scores(gt_video, pred_video, num_gt, num_slots):
    """gt_video, pred_video: [T, H, W] segment ids."""
    mdices = [hungarian_mdice(g, p, num_gt, num_slots) for g, p in zip(gt_video, pred_video)]
    aris = [fg_ari(g, p) for g, p in zip(gt_video, pred_video)]
    return float(np.nanmean(mdices)), float(np.nanmean(aris))
