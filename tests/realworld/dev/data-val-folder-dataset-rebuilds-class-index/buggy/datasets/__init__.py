from .folder import ImageFolderDataset, find_images
from .transforms import build_transforms

__all__ = ["ImageFolderDataset", "find_images", "build_transforms"]
