import lightning.pytorch as pl
from lightning.pytorch.callbacks import ModelCheckpoint

from data import DataModule
from model import ColaModel

if __name__ == "__main__":
    cola_data = DataModule()
    cola_model = ColaModel()
    checkpoint_callback = ModelCheckpoint(dirpath="./models", monitor="valid_loss", mode="min")
    trainer = pl.Trainer(default_root_dir="logs", accelerator="auto", max_epochs=5,
                         fast_dev_run=False, callbacks=[checkpoint_callback])
    trainer.fit(cola_model, cola_data)
