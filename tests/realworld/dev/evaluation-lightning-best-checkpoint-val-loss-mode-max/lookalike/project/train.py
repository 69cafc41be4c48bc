"""Entry point: train with early stopping, then report test metrics of the best checkpoint."""
import argparse
import os

import lightning as L
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint

from project.config import load_hparams
from project.data import TabularDataModule
from project.model import MyModel

BEST_MODEL_NAME = "best_model"
LAST_MODEL_NAME = "last_model"


def train(model, datamodule, output, hparams, use_progress_bar=False):
    early_stopping_params = hparams["early_stopping"]
    best_checkpoint_callback = ModelCheckpoint(
        dirpath=os.path.join(output, BEST_MODEL_NAME),
        filename="model",
        save_top_k=1,
        verbose=use_progress_bar,
        monitor="val_acc",
        mode="max",
        every_n_epochs=1,
    )
    last_checkpoint_callback = ModelCheckpoint(
        dirpath=os.path.join(output, LAST_MODEL_NAME),
        filename="model",
        verbose=use_progress_bar,
        every_n_epochs=1,
    )
    early_stopping = EarlyStopping(
        early_stopping_params["metric"],
        mode=early_stopping_params["mode"],
        patience=early_stopping_params["patience"],
        verbose=use_progress_bar,
    )
    trainer = L.Trainer(
        callbacks=[early_stopping, best_checkpoint_callback, last_checkpoint_callback],
        max_epochs=hparams["max_epoch"],
        enable_progress_bar=use_progress_bar,
        logger=False,
        accelerator="cpu",
    )
    trainer.fit(model, datamodule=datamodule)
    return trainer, best_checkpoint_callback


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", default=None)
    parser.add_argument("--max-epoch", type=int, default=None)
    args = parser.parse_args()
    overrides = {"max_epoch": args.max_epoch} if args.max_epoch else {}
    hparams = load_hparams(overrides)
    output = args.output or hparams["output"]
    L.seed_everything(hparams["seed"])

    datamodule = TabularDataModule(hparams["batch_size"], hparams["num_classes"])
    model = MyModel(input_dim=datamodule.n_features, hparams=hparams)
    trainer, best_ckpt = train(model, datamodule, output, hparams)
    results = trainer.test(model, datamodule=datamodule, ckpt_path=best_ckpt.best_model_path, verbose=False)
    print("best checkpoint:", best_ckpt.best_model_path, "score", float(best_ckpt.best_model_score))
    print("test metrics of the best model:", results[0])


if __name__ == "__main__":
    main()
