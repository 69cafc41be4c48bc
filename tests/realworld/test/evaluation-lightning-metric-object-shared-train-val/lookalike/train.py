import pytorch_lightning as pl
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint
from pytorch_lightning.loggers import CSVLogger

from data import DataModule
from model import ColaModel


def main():
    cola_data = DataModule()
    cola_model = ColaModel()

    checkpoint_callback = ModelCheckpoint(
        dirpath="./models", filename="best-checkpoint", monitor="valid/acc", mode="max")
    early_stopping_callback = EarlyStopping(monitor="valid/acc", patience=3, mode="max")

    trainer = pl.Trainer(
        max_epochs=10,
        logger=CSVLogger("logs", name="cola"),
        callbacks=[checkpoint_callback, early_stopping_callback],
        log_every_n_steps=10,
        deterministic=True,
    )
    trainer.fit(cola_model, cola_data)


if __name__ == "__main__":
    main()
