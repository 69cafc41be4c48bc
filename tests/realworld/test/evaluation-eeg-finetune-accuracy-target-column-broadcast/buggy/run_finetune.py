"""Fine-tune the EEG transformer and keep the checkpoint with the best validation accuracy."""
import torch
from torch.utils.data import DataLoader

from dataset import EEGEventDataset
from engine_for_finetuning import evaluate, train_one_epoch
from model import EEGTransformer


def main(epochs=4, lr=5e-4, output_path="checkpoint-best.pth"):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader = DataLoader(EEGEventDataset(512, seed=0), batch_size=64, shuffle=True)
    val_loader = DataLoader(EEGEventDataset(128, seed=1), batch_size=64)

    model = EEGTransformer().to(device)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)

    max_accuracy = 0.0
    for epoch in range(epochs):
        train_stats = train_one_epoch(model, criterion, train_loader, optimizer, device, max_norm=1.0)
        val_stats = evaluate(model, criterion, val_loader, device)
        if val_stats["accuracy"] > max_accuracy:
            max_accuracy = val_stats["accuracy"]
            torch.save(model.state_dict(), output_path)
        print(f"epoch {epoch}: train {train_stats} val {val_stats} best {max_accuracy:.3f}")


if __name__ == "__main__":
    main()
