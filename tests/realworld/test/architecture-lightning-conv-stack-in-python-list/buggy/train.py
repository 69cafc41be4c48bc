import pytorch_lightning as pl
from torch.utils.data import DataLoader
from datamodule import SpeechCommands
from model import Conv1DClassifier

if __name__ == "__main__":
    train_ds, val_ds = SpeechCommands("train"), SpeechCommands("validation")
    model = Conv1DClassifier(num_classes=train_ds.num_classes)
    trainer = pl.Trainer(max_epochs=30, accelerator="cpu")
    trainer.fit(model, DataLoader(train_ds, batch_size=64, shuffle=True), DataLoader(val_ds, batch_size=64))
