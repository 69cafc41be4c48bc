"""Fine-tune an AudioSet-pretrained CNN10 on a 41-class sound-event dataset."""
import torch
from torch import nn
from torch.utils.data import DataLoader

from audio_dataset import TaggingDataset
from config import NUM_CLASSES, PRETRAINED_CKPT


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
        nn.AvgPool2d(2),
    )


class Cnn10(nn.Module):
    def __init__(self, num_classes=527):
        super().__init__()
        self.bn0 = nn.BatchNorm2d(64)
        self.blocks = nn.Sequential(conv_block(1, 64), conv_block(64, 128), conv_block(128, 256), conv_block(256, 512))
        self.fc1 = nn.Linear(512, 512)
        self.fc_audioset = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.bn0(x.transpose(1, 2)).transpose(1, 2)
        x = self.blocks(x)
        x = x.mean(dim=2)
        x = x.max(dim=2).values + x.mean(dim=2)
        x = torch.relu(self.fc1(nn.functional.dropout(x, 0.5, self.training)))
        return self.fc_audioset(x)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with open("data/labels.txt") as fh:
        labels = [line.strip() for line in fh if line.strip()]
    label_to_idx = {l: i for i, l in enumerate(labels)}
    train_ds = TaggingDataset("data/train.csv", "data/audio_train", label_to_idx, train=True)
    val_ds = TaggingDataset("data/val.csv", "data/audio_train", label_to_idx, train=False)
    train_dl = DataLoader(train_ds, batch_size=32, shuffle=True, num_workers=8, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=32, num_workers=8)

    model = Cnn10()
    state = torch.load(PRETRAINED_CKPT, map_location="cpu")["model"]
    model.load_state_dict({k: v for k, v in state.items() if k in model.state_dict()}, strict=False)
    model.fc_audioset = nn.Linear(512, NUM_CLASSES)
    model.to(device)

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-2)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(20):
        model.train()
        for mel, y in train_dl:
            mel, y = mel.to(device), y.to(device)
            loss = criterion(model(mel), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for mel, y in val_dl:
                pred = model(mel.to(device)).argmax(1).cpu()
                correct += (pred == y).sum().item()
                total += y.numel()
        print(f"epoch {epoch}: last loss {loss.item():.3f} val acc {correct / total:.4f}")
    torch.save(model.state_dict(), "cnn10_finetuned.pth")


if __name__ == "__main__":
    main()
