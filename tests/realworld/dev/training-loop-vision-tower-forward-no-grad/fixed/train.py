import torch
import torch.nn.functional as F

from config import TrainingArguments
from model import TinyVLM


def build_optimizer(model, args):
    params = []
    if args.tune_vision_tower:
        params += list(model.vision_tower.parameters())
    if args.tune_connector:
        params += list(model.connector.parameters())
    return torch.optim.AdamW(params, lr=args.learning_rate)


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(32, 5, generator=torch.Generator().manual_seed(42))
    x = torch.randn(n, 32, generator=g)
    y = (x @ w).argmax(dim=1)
    return x, y


def main():
    args = TrainingArguments()
    torch.manual_seed(args.seed)
    model = TinyVLM()
    optimizer = build_optimizer(model, args)
    x, y = make_split(2048, 0)
    xv, yv = make_split(512, 1)
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(x.shape[0])
        for i in range(0, x.shape[0], args.batch_size):
            idx = perm[i:i + args.batch_size]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
        if epoch % 5 == 4:
            model.eval()
            with torch.no_grad():
                acc = (model(xv).argmax(1) == yv).float().mean().item()
            print(f"epoch {epoch + 1:2d}  train loss {loss.item():.4f}  val acc {acc:.3f}")


if __name__ == "__main__":
    main()
