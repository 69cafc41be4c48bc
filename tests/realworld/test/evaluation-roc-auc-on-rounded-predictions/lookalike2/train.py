import numpy as np
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

from evaluate import evaluate
from model import MelCNN


def load_features(path="features/gtzan_music_speech.npz"):
    data = np.load(path)
    specs = data["melspecs"].astype(np.float32)
    specs = (specs - specs.mean()) / specs.std()
    return specs[:, None], data["labels"].astype(np.float32)


def main(epochs=30, batch_size=32, lr=1e-3, seed=0):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    X, y = load_features()
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
    train_loader = DataLoader(TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train)),
                              batch_size=batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(torch.from_numpy(X_test), torch.from_numpy(y_test)),
                             batch_size=batch_size)

    model = MelCNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.BCEWithLogitsLoss()
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for spec, label in train_loader:
            spec, label = spec.to(device), label.to(device)
            optimizer.zero_grad()
            loss = criterion(model(spec), label)
            loss.backward()
            optimizer.step()
            total += loss.item() * spec.size(0)
        print(f"epoch {epoch + 1}: train loss {total / len(train_loader.dataset):.4f}")

    results = evaluate(model, test_loader, device)
    torch.save({"model": model.state_dict(), "results": results}, "music_speech_cnn.pt")


if __name__ == "__main__":
    main()
