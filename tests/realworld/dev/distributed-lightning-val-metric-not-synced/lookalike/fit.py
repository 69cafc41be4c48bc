import lightning.pytorch as pl
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint

from datamodule import CIFAR100DataModule
from module import LitClassifier

if __name__ == "__main__":
    pl.seed_everything(7)
    ckpt = ModelCheckpoint(monitor="val_acc", mode="max", save_top_k=1)
    stop = EarlyStopping(monitor="val_acc", mode="max", patience=10)
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=200, callbacks=[ckpt, stop])
    trainer.fit(LitClassifier(), datamodule=CIFAR100DataModule(batch_size=128))
    print("best val_acc:", ckpt.best_model_score)
