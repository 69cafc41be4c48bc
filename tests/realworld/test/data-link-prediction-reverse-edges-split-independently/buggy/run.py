import torch

from datasets.graph import planted_partition
from models.embedding import NodeEmbedding
from tasks.link_prediction import LinkPrediction


def main():
    torch.manual_seed(0)
    adj = planted_partition(seed=3)
    task = LinkPrediction(adj, test_ratio=0.2, seed=0)
    print(f"nodes {adj.shape[0]}  train edges {len(task.train_edges)}  test edges {len(task.test_edges)}")
    model = NodeEmbedding(adj.shape[0], dim=8)
    task.train(model)
    print(f"test ROC-AUC {task.evaluate(model):.3f}")


if __name__ == "__main__":
    main()
