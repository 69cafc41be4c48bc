import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from audio_dataset import KeywordDataset
from features import LogMel

LABELS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]
SETTINGS = {"root": "./speech_commands", "noise_dir": "./speech_commands/_background_noise_",
            "epochs": 40, "batch_size": 128, "lr": 1e-3}


class KeywordCNN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))
        self.features = nn.Sequential(block(1, 32), block(32, 64), block(64, 128))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.3), nn.Linear(128, n_classes))

    def forward(self, x):
        return self.head(self.features(x))


def main(cfg=SETTINGS):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    featurizer = LogMel()
    train_ds = KeywordDataset(f"{cfg['root']}/train", LABELS, featurizer, training=True,
                              noise_dir=cfg["noise_dir"])
    val_ds = KeywordDataset(f"{cfg['root']}/valid", LABELS, featurizer, training=False)
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=cfg["batch_size"])

    model = KeywordCNN(len(LABELS)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg["lr"],
                                                    total_steps=cfg["epochs"] * len(train_loader))
    criterion = nn.CrossEntropyLoss()
    for epoch in range(cfg["epochs"]):
        model.train()
        for feats, labels in train_loader:
            feats, labels = feats.to(device), labels.to(device)
            loss = criterion(model(feats), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for feats, labels in val_loader:
                preds = model(feats.to(device)).argmax(1).cpu()
                correct += (preds == labels).sum().item()
                total += labels.numel()
        print(f"epoch {epoch}: train loss {loss.item():.4f}  val acc {correct / total:.4f}")
    torch.save(model.state_dict(), "keyword_cnn.pt")


if __name__ == "__main__":
    main()
