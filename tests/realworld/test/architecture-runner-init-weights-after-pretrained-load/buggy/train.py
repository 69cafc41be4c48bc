import torch
from hub import get_model
from data import build_dataloader


class Runner:
    def __init__(self, model, train_loader, lr=0.01, max_epochs=12):
        self.model = model
        self.train_loader = train_loader
        self.optim = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
        self.max_epochs = max_epochs

    def train(self):
        self.model.init_weights()
        self.model.train()
        for epoch in range(self.max_epochs):
            for inputs, targets in self.train_loader:
                losses = self.model(inputs, targets, mode="loss")
                loss = sum(losses.values())
                self.optim.zero_grad()
                loss.backward()
                self.optim.step()
            print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    model = get_model("configs/resnet50_8xb32_in1k.py", pretrained=True, num_classes=37)
    Runner(model, build_dataloader("data/pets", batch_size=32)).train()
