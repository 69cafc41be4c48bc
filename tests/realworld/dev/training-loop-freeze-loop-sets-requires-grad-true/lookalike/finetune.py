import torch
from torch import nn

from backbone import Classifier, load_pretrained_encoder, sample, world


def set_parameter_requires_grad(model, feature_extracting):
    if feature_extracting:
        for param in model.parameters():
            param.requires_grad = False


def main(feature_extract=True, epochs=150, lr=0.5):
    torch.manual_seed(0)
    w, v = world()
    g = torch.Generator().manual_seed(1)
    x_train, y_train = sample(48, w, v, g)
    x_val, y_val = sample(1000, w, v, g)

    encoder = load_pretrained_encoder(w)
    set_parameter_requires_grad(encoder, feature_extract)
    model = Classifier(encoder)
    for param in model.fc.parameters():
        param.requires_grad = True

    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        loss = criterion(model(x_train), y_train)
        loss.backward()
        optimizer.step()
        if (epoch + 1) % 50 == 0:
            model.eval()
            with torch.no_grad():
                val_acc = (model(x_val).argmax(1) == y_val).float().mean().item()
            drift = (model.encoder.proj.weight - w).norm().item()
            print(f"epoch {epoch + 1}: train loss {loss.item():.4f} val acc {val_acc:.3f} encoder drift {drift:.3f}")


if __name__ == "__main__":
    main()
