from .unet import UNet
from .diffusion import GaussianDiffusion

__all__ = ["UNet", "GaussianDiffusion"]
