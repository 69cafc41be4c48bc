import torch

from kge import TransE
from trainer import Trainer

CONFIG = dict(n_ent=120, n_rel=6, dim=24, n_train=1500, n_valid=200, lr=0.02, epochs=80, seed=3)


def synth_graph(cfg):
    g = torch.Generator().manual_seed(cfg["seed"])
    cluster = torch.randint(0, 6, (cfg["n_ent"],), generator=g)
    triples = []
    while len(triples) < cfg["n_train"] + cfg["n_valid"]:
        h = torch.randint(0, cfg["n_ent"], (1,), generator=g).item()
        r = torch.randint(0, cfg["n_rel"], (1,), generator=g).item()
        target_cluster = (cluster[h] + r) % 6
        cands = (cluster == target_cluster).nonzero().flatten()
        t = cands[torch.randint(0, len(cands), (1,), generator=g)].item()
        triples.append((h, r, t))
    triples = torch.tensor(triples)
    return triples[:cfg["n_train"]], triples[cfg["n_train"]:]


if __name__ == "__main__":
    torch.manual_seed(CONFIG["seed"])
    train_triples, valid_triples = synth_graph(CONFIG)
    transe = TransE(CONFIG["n_ent"], CONFIG["n_rel"], CONFIG["dim"])
    trainer = Trainer(transe, train_triples, valid_triples, CONFIG["n_ent"], alpha=CONFIG["lr"],
                      train_times=CONFIG["epochs"])
    best = trainer.run()
    final = trainer.hits_at_10(valid_triples)
    print(f"best logged valid hits@10 {best:.3f}; restored model valid hits@10 {final:.3f}")
