"""shapecls: small-image classification recipes (ResNet, SGD/AdamW, warmup-cosine)."""
__version__ = "1.2.0"
