import json
import os

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset

from .dataset_info import NUM_JOINTS, JOINT_WEIGHTS


class TopDownCocoDataset(Dataset):
    def __init__(self, ann_file, img_dir, pipeline):
        with open(ann_file) as f:
            coco = json.load(f)
        self.img_dir = img_dir
        self.pipeline = pipeline
        images = {im["id"]: im["file_name"] for im in coco["images"]}
        self.samples = []
        for ann in coco["annotations"]:
            if ann.get("num_keypoints", 0) == 0 or ann.get("iscrowd", 0):
                continue
            kpts = np.array(ann["keypoints"], dtype=np.float32).reshape(NUM_JOINTS, 3)
            self.samples.append({"file": images[ann["image_id"]], "bbox": ann["bbox"], "kpts": kpts})

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        s = self.samples[idx]
        img = cv2.imread(os.path.join(self.img_dir, s["file"]), cv2.IMREAD_COLOR)
        x, y, w, h = [int(v) for v in s["bbox"]]
        crop = img[max(y, 0):y + h, max(x, 0):x + w]
        joints = s["kpts"][:, :2] - np.array([max(x, 0), max(y, 0)], dtype=np.float32)
        vis = (s["kpts"][:, 2:3] > 0).astype(np.float32)
        results = self.pipeline({"img": crop, "joints": joints, "joints_vis": vis})
        weight = results["target_weight"] * np.array(JOINT_WEIGHTS, dtype=np.float32)[:, None]
        return results["img"], torch.from_numpy(results["target"]), torch.from_numpy(weight)
