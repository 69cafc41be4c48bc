import cv2
import numpy as np
import torch

from color import color_aug_and_norm


class Pipeline:
    def __init__(self, cfg, keep_ratio=True):
        self.cfg = cfg
        self.keep_ratio = keep_ratio

    def __call__(self, meta, dst_shape):
        meta["img"] = cv2.resize(meta["img"], dst_shape)
        meta = color_aug_and_norm(meta, self.cfg)
        meta["img"] = torch.from_numpy(meta["img"].transpose(2, 0, 1).copy())
        return meta


TRAIN_PIPELINE_CFG = {
    "brightness": 0.2,
    "contrast": [0.6, 1.4],
    "saturation": [0.5, 1.2],
    "normalize": [[103.53, 116.28, 123.675], [57.375, 57.12, 58.395]],
}
