import argparse

import torch as th

from gsf.trainer import NodePredictionTrainer
from gsf.model import RGCNNodeModel
from gsf.data import build_node_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graph-path", required=True)
    parser.add_argument("--num-epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max-grad-norm", type=float, default=1.0)
    parser.add_argument("--grad-norm-type", type=float, default=2.0)
    args = parser.parse_args()

    loader, num_feats, num_classes = build_node_loader(args.graph_path, batch_size=1024, fanout=[10, 10])
    model = RGCNNodeModel(num_feats, hidden=128, num_classes=num_classes, num_layers=2)
    optimizer = th.optim.Adam(model.parameters(), lr=args.lr)
    trainer = NodePredictionTrainer(model, optimizer)
    trainer.fit(loader, args.num_epochs, max_grad_norm=args.max_grad_norm, grad_norm_type=args.grad_norm_type)


if __name__ == "__main__":
    main()
