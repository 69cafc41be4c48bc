import os

from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp")


class ImageFolderDataset(Dataset):
    def __init__(self, root, resolution):
        self.paths = sorted(
            os.path.join(root, name) for name in os.listdir(root) if name.lower().endswith(IMAGE_EXTENSIONS)
        )
        self.transform = transforms.Compose([
            transforms.Resize(resolution, interpolation=transforms.InterpolationMode.BILINEAR),
            transforms.CenterCrop(resolution),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize([0.5], [0.5]),
        ])

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        image = Image.open(self.paths[idx]).convert("RGB")
        return {"input": self.transform(image)}
