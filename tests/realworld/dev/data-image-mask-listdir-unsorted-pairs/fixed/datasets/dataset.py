import os

import numpy as np
from PIL import Image
from torch.utils.data import Dataset


class ISICPairs(Dataset):
    """Lesion images in <root>/<split>/images, binary masks in <root>/<split>/masks."""

    def __init__(self, path_data, config, train=True):
        super().__init__()
        split = "train" if train else "val"
        img_dir = os.path.join(path_data, split, "images")
        msk_dir = os.path.join(path_data, split, "masks")
        images_list = sorted(os.listdir(img_dir))
        masks_list = sorted(os.listdir(msk_dir))
        self.data = []
        for i in range(len(images_list)):
            img_path = os.path.join(img_dir, images_list[i])
            msk_path = os.path.join(msk_dir, masks_list[i])
            self.data.append((img_path, msk_path))
        self.transformer = config.train_transformer if train else config.test_transformer

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        img_path, msk_path = self.data[idx]
        img = np.array(Image.open(img_path).convert("RGB"))
        msk = np.expand_dims(np.array(Image.open(msk_path).convert("L")), axis=2) / 255.0
        img, msk = self.transformer((img, msk))
        return img, msk
