import cv2
import numpy as np
import torch


class RandomFlip:
    """Mirror the person crop and its keypoints horizontally."""

    def __init__(self, flip_prob=0.5):
        self.flip_prob = flip_prob

    def __call__(self, results):
        if np.random.rand() > self.flip_prob:
            return results
        img = results["img"]
        width = img.shape[1]
        results["img"] = img[:, ::-1, :].copy()
        joints = results["joints"].copy()
        joints[:, 0] = width - 1 - joints[:, 0]
        results["joints"] = joints
        results["joints_vis"] = results["joints_vis"].copy()
        return results


class RandomScaleRotate:
    def __init__(self, scale_factor=0.35, rot_factor=45, rot_prob=0.6, out_size=(192, 256)):
        self.scale_factor = scale_factor
        self.rot_factor = rot_factor
        self.rot_prob = rot_prob
        self.out_size = out_size

    def __call__(self, results):
        img = results["img"]
        h, w = img.shape[:2]
        s = np.clip(np.random.randn() * self.scale_factor + 1, 1 - self.scale_factor, 1 + self.scale_factor)
        r = 0.0
        if np.random.rand() < self.rot_prob:
            r = np.clip(np.random.randn() * self.rot_factor, -2 * self.rot_factor, 2 * self.rot_factor)
        center = (w / 2.0, h / 2.0)
        mat = cv2.getRotationMatrix2D(center, r, 1.0 / s)
        mat[0, 2] += self.out_size[0] / 2.0 - center[0]
        mat[1, 2] += self.out_size[1] / 2.0 - center[1]
        results["img"] = cv2.warpAffine(img, mat, self.out_size, flags=cv2.INTER_LINEAR)
        joints = results["joints"]
        ones = np.ones((joints.shape[0], 1), dtype=joints.dtype)
        results["joints"] = np.concatenate([joints[:, :2], ones], axis=1) @ mat.T
        return results


class GenerateHeatmap:
    def __init__(self, heatmap_size=(48, 64), image_size=(192, 256), sigma=2.0):
        self.heatmap_size = heatmap_size
        self.stride = image_size[0] / heatmap_size[0]
        self.sigma = sigma

    def __call__(self, results):
        joints, vis = results["joints"], results["joints_vis"]
        hm_w, hm_h = self.heatmap_size
        target = np.zeros((len(joints), hm_h, hm_w), dtype=np.float32)
        weight = vis[:, :1].astype(np.float32).copy()
        xs = np.arange(hm_w)[None, :]
        ys = np.arange(hm_h)[:, None]
        for j, (x, y) in enumerate(joints[:, :2] / self.stride):
            if weight[j, 0] == 0 or not (0 <= x < hm_w and 0 <= y < hm_h):
                weight[j, 0] = 0
                continue
            target[j] = np.exp(-((xs - x) ** 2 + (ys - y) ** 2) / (2 * self.sigma ** 2))
        results["target"] = target
        results["target_weight"] = weight
        return results


class NormalizeToTensor:
    def __init__(self, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
        self.mean = np.array(mean, dtype=np.float32)
        self.std = np.array(std, dtype=np.float32)

    def __call__(self, results):
        img = results["img"][:, :, ::-1].astype(np.float32) / 255.0
        img = (img - self.mean) / self.std
        results["img"] = torch.from_numpy(img.transpose(2, 0, 1).copy())
        return results


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, results):
        for t in self.transforms:
            results = t(results)
        return results
