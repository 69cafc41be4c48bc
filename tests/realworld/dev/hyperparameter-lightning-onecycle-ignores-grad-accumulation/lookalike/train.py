import math

import lightning.pytorch as pl
from lightning.pytorch.callbacks import LearningRateMonitor

from data import SignDataModule
from models import build_encoder, build_head
from module import SignModel

EPOCHS = 30
ACCUMULATE = 4

if __name__ == "__main__":
    dm = SignDataModule("data/hamnosys", batch_size=8)
    dm.setup("fit")
    model = SignModel(build_encoder(), build_head(), lr=1e-3,
                      steps_per_epoch=len(dm.train_dataloader()), epochs=EPOCHS)
    trainer = pl.Trainer(max_epochs=EPOCHS, accumulate_grad_batches=ACCUMULATE,
                         callbacks=[LearningRateMonitor("step")], accelerator="gpu", devices=1)
    trainer.fit(model, datamodule=dm)
