import lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint

from data import make_loaders
from lit_module import LitSmilesVAE


def main():
    vocab, train_loader, val_loader = make_loaders("data/zinc250k.smi")
    module = LitSmilesVAE(len(vocab), vocab.pad_idx)
    ckpt = ModelCheckpoint(monitor="val/token_acc", mode="max", save_top_k=1)
    trainer = L.Trainer(max_epochs=60, gradient_clip_val=1.0, callbacks=[ckpt])
    trainer.fit(module, train_loader, val_loader)


if __name__ == "__main__":
    main()
