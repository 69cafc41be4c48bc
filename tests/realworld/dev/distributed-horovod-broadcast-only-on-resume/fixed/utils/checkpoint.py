import glob
import os

import horovod.torch as hvd
import torch


def latest_epoch(checkpoint_format, epochs):
    """Newest epoch that has a checkpoint on disk (0 if none)."""
    for epoch in range(epochs, 0, -1):
        if os.path.exists(checkpoint_format.format(epoch=epoch)):
            return epoch
    return 0


def save_checkpoint(model, optimizer, checkpoint_format, epoch):
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(checkpoint_format) or ".", exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                   checkpoint_format.format(epoch=epoch + 1))


def clean_old(checkpoint_dir, keep=3):
    files = sorted(glob.glob(os.path.join(checkpoint_dir, "checkpoint-*.pth.tar")),
                   key=os.path.getmtime)
    for f in files[:-keep]:
        os.remove(f)
