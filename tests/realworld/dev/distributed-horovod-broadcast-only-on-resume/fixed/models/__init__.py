from .wide_resnet import wide_resnet16_4

__all__ = ["wide_resnet16_4"]
