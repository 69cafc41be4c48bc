import torch


def configure_precision():
    # residuals are ~1e-5, keep everything in true fp32
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
