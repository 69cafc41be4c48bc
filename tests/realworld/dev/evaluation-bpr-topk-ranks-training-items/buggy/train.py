import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import BPRTripletDataset, load_interactions, ratio_split, user_item_sets
from metrics import evaluate_topk
from model import BPRMF

CONFIG = dict(path="data/ml-1m/ratings.dat", dim=64, lr=1e-3, reg=1e-4, epochs=50, batch_size=4096, topk=20)


def main(cfg=CONFIG):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    df, num_users, num_items = load_interactions(cfg["path"])
    train_df, test_df = ratio_split(df)
    train_items, test_items = user_item_sets(train_df), user_item_sets(test_df)

    loader = DataLoader(BPRTripletDataset(train_df, num_items), batch_size=cfg["batch_size"],
                        shuffle=True, num_workers=4)
    model = BPRMF(num_users, num_items, cfg["dim"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    for epoch in range(cfg["epochs"]):
        model.train()
        total = 0.0
        for u, i, j in loader:
            u, i, j = u.to(device), i.to(device), j.to(device)
            pos, neg = model(u, i, j)
            reg = cfg["reg"] * (model.user_emb(u).pow(2).sum() + model.item_emb(i).pow(2).sum()
                                + model.item_emb(j).pow(2).sum()) / u.size(0)
            loss = -F.logsigmoid(pos - neg).mean() + reg
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        recall, ndcg = evaluate_topk(model, train_items, test_items, k=cfg["topk"], device=device)
        print(f"epoch {epoch:3d} loss {total / len(loader):.4f} recall@{cfg['topk']} {recall:.4f} ndcg {ndcg:.4f}")


if __name__ == "__main__":
    main()
