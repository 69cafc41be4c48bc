import torch
from torch.utils.data import DataLoader

from coco import CocoDetection
from pipeline import Pipeline, TRAIN_PIPELINE_CFG
from nanodet_lite import NanoDetLite


def main():
    train_set = CocoDetection("coco/train2017", "coco/annotations/instances_train2017.json",
                              pipeline=Pipeline(TRAIN_PIPELINE_CFG), input_size=(320, 320))
    loader = DataLoader(train_set, batch_size=96, shuffle=True, num_workers=8, collate_fn=train_set.collate)
    detector = NanoDetLite(num_classes=80).cuda()
    opt = torch.optim.SGD(detector.parameters(), lr=0.14, momentum=0.9, weight_decay=1e-4)
    for epoch in range(280):
        for batch in loader:
            loss, stats = detector.forward_train(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
