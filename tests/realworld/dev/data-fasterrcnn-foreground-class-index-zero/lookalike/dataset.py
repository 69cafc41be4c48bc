import os
import xml.etree.ElementTree as ET

import torch
from PIL import Image
from torchvision.transforms import functional as F

CLASSES = ["__background__", "pothole", "crack", "manhole"]


class RoadDamageDataset(torch.utils.data.Dataset):
    def __init__(self, root, split="train", transforms=None):
        self.root = root
        self.transforms = transforms
        with open(os.path.join(root, "ImageSets", f"{split}.txt")) as f:
            self.ids = [line.strip() for line in f if line.strip()]
        self.class_to_idx = {name: i for i, name in enumerate(CLASSES)}

    def __len__(self):
        return len(self.ids)

    def _parse_annotation(self, image_id):
        tree = ET.parse(os.path.join(self.root, "Annotations", f"{image_id}.xml"))
        boxes, labels = [], []
        for obj in tree.findall("object"):
            name = obj.find("name").text.strip().lower()
            if name not in self.class_to_idx or name == "__background__":
                continue
            bb = obj.find("bndbox")
            box = [float(bb.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")]
            if box[2] <= box[0] or box[3] <= box[1]:
                continue
            boxes.append(box)
            labels.append(self.class_to_idx[name])
        return boxes, labels

    def __getitem__(self, idx):
        image_id = self.ids[idx]
        img = Image.open(os.path.join(self.root, "JPEGImages", f"{image_id}.jpg")).convert("RGB")
        boxes, labels = self._parse_annotation(image_id)
        boxes = torch.as_tensor(boxes, dtype=torch.float32).reshape(-1, 4)
        target = {
            "boxes": boxes,
            "labels": torch.as_tensor(labels, dtype=torch.int64),
            "image_id": idx,
            "area": (boxes[:, 3] - boxes[:, 1]) * (boxes[:, 2] - boxes[:, 0]),
            "iscrowd": torch.zeros((len(labels),), dtype=torch.int64),
        }
        img = F.to_tensor(img)
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target


def collate_fn(batch):
    return tuple(zip(*batch))
