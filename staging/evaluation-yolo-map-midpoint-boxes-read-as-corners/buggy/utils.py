from collections import Counter

import torch

import config


def intersection_over_union(boxes_preds, boxes_labels, box_format="midpoint"):
    if box_format == "midpoint":
        b1_x1 = boxes_preds[..., 0:1] - boxes_preds[..., 2:3] / 2
        b1_y1 = boxes_preds[..., 1:2] - boxes_preds[..., 3:4] / 2
        b1_x2 = boxes_preds[..., 0:1] + boxes_preds[..., 2:3] / 2
        b1_y2 = boxes_preds[..., 1:2] + boxes_preds[..., 3:4] / 2
        b2_x1 = boxes_labels[..., 0:1] - boxes_labels[..., 2:3] / 2
        b2_y1 = boxes_labels[..., 1:2] - boxes_labels[..., 3:4] / 2
        b2_x2 = boxes_labels[..., 0:1] + boxes_labels[..., 2:3] / 2
        b2_y2 = boxes_labels[..., 1:2] + boxes_labels[..., 3:4] / 2
    else:
        b1_x1, b1_y1, b1_x2, b1_y2 = (boxes_preds[..., i:i + 1] for i in range(4))
        b2_x1, b2_y1, b2_x2, b2_y2 = (boxes_labels[..., i:i + 1] for i in range(4))
    x1, y1 = torch.max(b1_x1, b2_x1), torch.max(b1_y1, b2_y1)
    x2, y2 = torch.min(b1_x2, b2_x2), torch.min(b1_y2, b2_y2)
    inter = (x2 - x1).clamp(0) * (y2 - y1).clamp(0)
    area1 = ((b1_x2 - b1_x1) * (b1_y2 - b1_y1)).abs()
    area2 = ((b2_x2 - b2_x1) * (b2_y2 - b2_y1)).abs()
    return inter / (area1 + area2 - inter + 1e-6)


def non_max_suppression(bboxes, iou_threshold, threshold, box_format="midpoint"):
    bboxes = sorted([b for b in bboxes if b[1] > threshold], key=lambda b: b[1], reverse=True)
    kept = []
    while bboxes:
        chosen = bboxes.pop(0)
        bboxes = [
            b for b in bboxes
            if b[0] != chosen[0]
            or intersection_over_union(torch.tensor(chosen[2:]), torch.tensor(b[2:]), box_format) < iou_threshold
        ]
        kept.append(chosen)
    return kept


def mean_average_precision(pred_boxes, true_boxes, iou_threshold=0.5, box_format="midpoint", num_classes=20):
    """Boxes are [train_idx, class, prob, x1, y1, x2, y2] (or x, y, w, h for midpoint)."""
    average_precisions = []
    for c in range(num_classes):
        detections = sorted([d for d in pred_boxes if d[1] == c], key=lambda d: d[2], reverse=True)
        ground_truths = [g for g in true_boxes if g[1] == c]
        if not ground_truths:
            continue
        amount = {k: torch.zeros(v) for k, v in Counter(g[0] for g in ground_truths).items()}
        tp, fp = torch.zeros(len(detections)), torch.zeros(len(detections))
        for d_idx, det in enumerate(detections):
            gts = [g for g in ground_truths if g[0] == det[0]]
            best_iou, best_gt = 0.0, -1
            for g_idx, gt in enumerate(gts):
                iou = intersection_over_union(torch.tensor(det[3:]), torch.tensor(gt[3:]), box_format=box_format)
                if iou > best_iou:
                    best_iou, best_gt = iou, g_idx
            if best_iou > iou_threshold and amount[det[0]][best_gt] == 0:
                tp[d_idx] = 1
                amount[det[0]][best_gt] = 1
            else:
                fp[d_idx] = 1
        tp_cum, fp_cum = tp.cumsum(0), fp.cumsum(0)
        recalls = torch.cat([torch.tensor([0.0]), tp_cum / (len(ground_truths) + 1e-6)])
        precisions = torch.cat([torch.tensor([1.0]), tp_cum / (tp_cum + fp_cum + 1e-6)])
        average_precisions.append(torch.trapz(precisions, recalls))
    return sum(average_precisions) / max(len(average_precisions), 1)


def cells_to_bboxes(predictions, anchors, S, is_preds=True):
    """Grid-cell outputs -> [class, score, x, y, w, h] per anchor cell, image-relative midpoints."""
    batch_size, num_anchors = predictions.shape[0], len(anchors)
    box_predictions = predictions[..., 1:5]
    if is_preds:
        anchors = anchors.reshape(1, num_anchors, 1, 1, 2)
        box_predictions[..., 0:2] = torch.sigmoid(box_predictions[..., 0:2])
        box_predictions[..., 2:] = torch.exp(box_predictions[..., 2:]) * anchors
        scores = torch.sigmoid(predictions[..., 0:1])
        best_class = torch.argmax(predictions[..., 5:], dim=-1).unsqueeze(-1)
    else:
        scores = predictions[..., 0:1]
        best_class = predictions[..., 5:6]
    cell = torch.arange(S, device=predictions.device).repeat(batch_size, num_anchors, S, 1).unsqueeze(-1)
    x = (box_predictions[..., 0:1] + cell) / S
    y = (box_predictions[..., 1:2] + cell.permute(0, 1, 3, 2, 4)) / S
    wh = box_predictions[..., 2:4] / S
    out = torch.cat((best_class.float(), scores, x, y, wh), dim=-1)
    return out.reshape(batch_size, num_anchors * S * S, 6).tolist()


@torch.no_grad()
def get_evaluation_bboxes(loader, model, iou_threshold, anchors, threshold, box_format="midpoint", device="cuda"):
    model.eval()
    train_idx = 0
    all_pred_boxes, all_true_boxes = [], []
    for x, labels in loader:
        x = x.to(device)
        predictions = model(x)
        batch_size = x.shape[0]
        bboxes = [[] for _ in range(batch_size)]
        for i in range(3):
            S = predictions[i].shape[2]
            anchor = torch.tensor(anchors[i], device=device) * S
            for idx, box in enumerate(cells_to_bboxes(predictions[i], anchor, S=S, is_preds=True)):
                bboxes[idx] += box
        true_bboxes = cells_to_bboxes(labels[2].to(device), anchors[2], S=labels[2].shape[2], is_preds=False)
        for idx in range(batch_size):
            for nms_box in non_max_suppression(bboxes[idx], iou_threshold, threshold, box_format=box_format):
                all_pred_boxes.append([train_idx] + nms_box)
            for box in true_bboxes[idx]:
                if box[1] > threshold:
                    all_true_boxes.append([train_idx] + box)
            train_idx += 1
    model.train()
    return all_pred_boxes, all_true_boxes
