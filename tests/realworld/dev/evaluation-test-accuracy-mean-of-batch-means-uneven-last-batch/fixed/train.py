import yaml
import torch
from torch.utils.data import DataLoader
from data import IMDBDataset, pad_collate
from model import SentimentCNN
from evaluate import evaluate


def main(cfg):
    device = torch.device(cfg["device"])
    train_ds = IMDBDataset(cfg["data_dir"], split="train")
    test_ds = IMDBDataset(cfg["data_dir"], split="test", vocab=train_ds.vocab)
    train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, collate_fn=pad_collate)
    test_dl = DataLoader(test_ds, batch_size=cfg["batch_size"], shuffle=False, collate_fn=pad_collate)
    model = SentimentCNN(len(train_ds.vocab), cfg["embed_dim"]).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    crit = torch.nn.BCEWithLogitsLoss()
    for epoch in range(cfg["epochs"]):
        model.train()
        for tokens, lengths, labels in train_dl:
            logits = model(tokens.to(device), lengths)
            loss = crit(logits, labels.float().to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
        test_acc = evaluate(model, test_dl, device)
        print(f"epoch {epoch}: last train loss {loss.item():.4f} test acc {test_acc:.4f}")
        if test_acc >= cfg["target_accuracy"]:
            print("target reached")
            break


if __name__ == "__main__":
    with open("config.yaml") as f:
        main(yaml.safe_load(f))
