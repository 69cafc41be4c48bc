from dataclasses import dataclass


@dataclass
class GANConfig:
    sample_rate: int = 16000
    segment: int = 8192
    n_mels: int = 80
    hop: int = 256
    gen_channels: int = 256
    lr_gen: float = 2e-4
    lr_disc: float = 2e-4
    betas: tuple = (0.8, 0.99)
    lambda_mel: float = 45.0
    lambda_fm: float = 2.0
    periods: tuple = (2, 3, 5, 7, 11)
    resolutions: tuple = ((1024, 120, 600), (2048, 240, 1200), (512, 50, 240))
