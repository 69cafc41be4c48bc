import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from modules import PixelEncoder, get_classifier
from utils import collect_features, compute_labels, run_kmeans

ARGS = {"K_train": 4, "num_epoch": 3, "batch_size": 8, "lr": 1e-2, "n_images": 80}


def synthetic_scenes(n, size=16, seed=0):
    """Mostly sky/ground background with a few small coloured objects per image."""
    g = torch.Generator().manual_seed(seed)
    palette = torch.tensor([[0.2, 0.4, 0.9], [0.9, 0.2, 0.2], [0.2, 0.8, 0.2], [0.9, 0.9, 0.1]])
    imgs = palette[0].view(1, 3, 1, 1).repeat(n, 1, size, size)
    gt = torch.zeros(n, size, size, dtype=torch.long)
    for i in range(n):
        for c in (1, 2, 3):
            y, x = torch.randint(0, size - 3, (2,), generator=g).tolist()
            imgs[i, :, y:y + 3, x:x + 3] = palette[c].view(3, 1, 1)
            gt[i, y:y + 3, x:x + 3] = c
    imgs = imgs + 0.15 * torch.randn(imgs.shape, generator=g)
    return TensorDataset(imgs, gt)


def train_epoch(model, classifier, loader, labels, weight, optimizer, epoch):
    model.train()
    criterion = torch.nn.CrossEntropyLoss(weight=weight)
    offset = 0
    for i, (img, _) in enumerate(loader):
        target = labels[offset:offset + img.shape[0]]
        offset += img.shape[0]
        logits = classifier(model(img)) / 0.1
        loss = criterion(logits, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 4 == 0:
            hist = torch.bincount(logits.argmax(1).flatten(), minlength=logits.shape[1]).tolist()
            print(f"epoch {epoch} it {i:2d} loss {loss.item():.4f} predicted cluster sizes {hist}")


def main():
    torch.manual_seed(0)
    data = synthetic_scenes(ARGS["n_images"])
    eval_loader = DataLoader(data, batch_size=ARGS["batch_size"], shuffle=False)
    model = PixelEncoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=ARGS["lr"], momentum=0.9)

    for epoch in range(ARGS["num_epoch"]):
        model.eval()
        centroids = run_kmeans(collect_features(model, eval_loader), ARGS["K_train"], seed=epoch)
        classifier = get_classifier(centroids)
        labels, weight, counts = compute_labels(model, eval_loader, centroids)
        print(f"epoch {epoch} cluster counts {counts.long().tolist()} CE weights {[round(w, 3) for w in weight.tolist()]}")
        train_epoch(model, classifier, eval_loader, labels, weight, optimizer, epoch)


if __name__ == "__main__":
    main()
