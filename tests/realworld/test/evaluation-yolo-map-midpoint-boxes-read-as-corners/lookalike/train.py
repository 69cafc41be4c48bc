import torch

import config
from dataset import build_loaders
from loss import YoloLoss
from model import YOLOv3
from utils import get_evaluation_bboxes, mean_average_precision


def train_one_epoch(loader, model, optimizer, loss_fn, scaled_anchors):
    model.train()
    for x, y in loader:
        x = x.to(config.DEVICE)
        y0, y1, y2 = (t.to(config.DEVICE) for t in y)
        out = model(x)
        loss = (loss_fn(out[0], y0, scaled_anchors[0]) + loss_fn(out[1], y1, scaled_anchors[1])
                + loss_fn(out[2], y2, scaled_anchors[2]))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    model = YOLOv3(num_classes=config.NUM_CLASSES).to(config.DEVICE)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.LEARNING_RATE, weight_decay=config.WEIGHT_DECAY)
    loss_fn = YoloLoss()
    train_loader, test_loader = build_loaders()
    scaled_anchors = (torch.tensor(config.ANCHORS)
                      * torch.tensor(config.S).unsqueeze(1).unsqueeze(1).repeat(1, 3, 2)).to(config.DEVICE)

    for epoch in range(config.NUM_EPOCHS):
        loss = train_one_epoch(train_loader, model, optimizer, loss_fn, scaled_anchors)
        print(f"epoch {epoch} loss {loss:.4f}")
        if epoch > 0 and epoch % 10 == 0:
            pred_boxes, true_boxes = get_evaluation_bboxes(
                test_loader, model, iou_threshold=config.NMS_IOU_THRESH, anchors=config.ANCHORS,
                threshold=config.CONF_THRESHOLD, box_format="corners", device=config.DEVICE,
            )
            map_val = mean_average_precision(
                pred_boxes, true_boxes, iou_threshold=config.MAP_IOU_THRESH,
                box_format="corners", num_classes=config.NUM_CLASSES,
            )
            print(f"mAP@0.5: {float(map_val):.4f}")
            torch.save(model.state_dict(), f"yolov3_epoch{epoch}.pth")


if __name__ == "__main__":
    main()
