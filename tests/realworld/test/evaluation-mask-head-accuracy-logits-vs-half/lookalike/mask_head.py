import torch
import torch.nn as nn
import torch.nn.functional as F
from detectron2.utils.events import get_event_storage


def mask_rcnn_loss(pred_mask_logits, instances, vis_period=0):
    cls_agnostic = pred_mask_logits.size(1) == 1
    mask_side = pred_mask_logits.size(2)
    gt_classes, gt_masks = [], []
    for inst in instances:
        if len(inst) == 0:
            continue
        if not cls_agnostic:
            gt_classes.append(inst.gt_classes.to(dtype=torch.int64))
        gt_masks.append(inst.gt_masks.crop_and_resize(inst.proposal_boxes.tensor, mask_side).to(pred_mask_logits.device))
    if len(gt_masks) == 0:
        return pred_mask_logits.sum() * 0
    gt_masks = torch.cat(gt_masks, dim=0).to(dtype=torch.float32)
    if cls_agnostic:
        pred_mask_logits = pred_mask_logits[:, 0]
    else:
        idx = torch.arange(pred_mask_logits.size(0))
        pred_mask_logits = pred_mask_logits[idx, torch.cat(gt_classes, dim=0)]

    pred_mask_probs = pred_mask_logits.sigmoid()
    mask_incorrect = (pred_mask_probs > 0.5) != (gt_masks > 0.5)
    mask_accuracy = 1 - (mask_incorrect.sum().item() / max(mask_incorrect.numel(), 1.0))
    num_positive = gt_masks.sum().item()
    false_positive = (mask_incorrect & (gt_masks <= 0.5)).sum().item() / max(gt_masks.numel() - num_positive, 1.0)
    false_negative = (mask_incorrect & (gt_masks > 0.5)).sum().item() / max(num_positive, 1.0)
    storage = get_event_storage()
    storage.put_scalar("mask_rcnn/accuracy", mask_accuracy)
    storage.put_scalar("mask_rcnn/false_positive", false_positive)
    storage.put_scalar("mask_rcnn/false_negative", false_negative)
    return F.binary_cross_entropy_with_logits(pred_mask_logits, gt_masks, reduction="mean")
