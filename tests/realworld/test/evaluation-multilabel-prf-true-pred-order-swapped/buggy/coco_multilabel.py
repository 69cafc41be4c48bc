import os

import torch
from PIL import Image
from pycocotools.coco import COCO
from torch.utils.data import Dataset


class CocoMultiLabel(Dataset):
    def __init__(self, root, ann_file, transform=None):
        self.root = root
        self.coco = COCO(ann_file)
        self.ids = sorted(self.coco.imgs.keys())
        self.cat_ids = sorted(self.coco.getCatIds())
        self.cat_to_idx = {c: i for i, c in enumerate(self.cat_ids)}
        self.transform = transform

    @property
    def num_classes(self):
        return len(self.cat_ids)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, index):
        img_id = self.ids[index]
        anns = self.coco.loadAnns(self.coco.getAnnIds(imgIds=img_id, iscrowd=None))
        target = torch.zeros(self.num_classes)
        for ann in anns:
            target[self.cat_to_idx[ann["category_id"]]] = 1.0
        path = self.coco.loadImgs(img_id)[0]["file_name"]
        img = Image.open(os.path.join(self.root, path)).convert("RGB")
        if self.transform is not None:
            img = self.transform(img)
        return img, target
