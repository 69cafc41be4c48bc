import random

import numpy as np
import torch


def set_seed(seed, accelerator=None):
    if accelerator is not None:
        # decorrelate per-sample randomness (augmentation, dropout of optional keys) across ranks
        seed += accelerator.process_index * 12345
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
