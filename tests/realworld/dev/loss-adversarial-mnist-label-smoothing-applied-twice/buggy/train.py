import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from attacks import fgsm
from data import load_mnist

FLAGS = {"nb_epochs": 6, "batch_size": 128, "learning_rate": 1e-3,
         "label_smoothing": 0.1, "eps": 0.3, "adv_weight": 0.5}


class BasicCNN(nn.Module):
    def __init__(self, nb_filters=64, nb_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, nb_filters, 8, stride=2, padding=3)
        self.conv2 = nn.Conv2d(nb_filters, nb_filters * 2, 6, stride=2)
        self.conv3 = nn.Conv2d(nb_filters * 2, nb_filters * 2, 5, stride=1)
        self.fc = nn.Linear(nb_filters * 2, nb_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        return self.fc(x.flatten(1))


def model_eval(model, x, y, device, attack=None, batch_size=512):
    model.eval()
    correct = 0
    for i in range(0, len(x), batch_size):
        xb, yb = x[i:i + batch_size].to(device), y[i:i + batch_size].to(device)
        if attack is not None:
            with torch.enable_grad():
                xb = attack(model, xb, yb)
        with torch.no_grad():
            correct += (model(xb).argmax(1) == yb.argmax(1)).sum().item()
    return correct / len(x)


def train(flags=FLAGS):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x_train, y_train, x_test, y_test = load_mnist(label_smoothing=flags["label_smoothing"])
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=flags["batch_size"], shuffle=True)

    model = BasicCNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=flags["learning_rate"])
    for epoch in range(flags["nb_epochs"]):
        model.train()
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            x_adv = fgsm(model, xb, yb, eps=flags["eps"])
            logits_clean = model(xb)
            logits_adv = model(x_adv)
            loss_clean = F.cross_entropy(logits_clean, yb, label_smoothing=flags["label_smoothing"])
            loss_adv = F.cross_entropy(logits_adv, yb, label_smoothing=flags["label_smoothing"])
            loss = (1 - flags["adv_weight"]) * loss_clean + flags["adv_weight"] * loss_adv
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        clean_acc = model_eval(model, x_test, y_test, device)
        adv_acc = model_eval(model, x_test, y_test, device,
                             attack=lambda m, x, y: fgsm(m, x, y, eps=flags["eps"]))
        print(f"epoch {epoch}: clean acc {clean_acc:.4f}  adv acc {adv_acc:.4f}")
    torch.save(model.state_dict(), "mnist_adv_trained.pt")


if __name__ == "__main__":
    train()
