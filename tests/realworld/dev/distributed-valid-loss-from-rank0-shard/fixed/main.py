import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from model import MemTransformerLM
from trainer import LMTrainer


def batchify(tokens, bsz, bptt, device):
    n = tokens.size(0) // bsz
    data = tokens[: n * bsz].view(bsz, n).t().contiguous().to(device)
    for i in range(0, n - 1, bptt):
        seq = min(bptt, n - 1 - i)
        yield data[i:i + seq], data[i + 1:i + 1 + seq]


class Stream:
    def __init__(self, tokens, bsz, bptt, device):
        self.tokens, self.bsz, self.bptt, self.device = tokens, bsz, bptt, device

    def __iter__(self):
        return batchify(self.tokens, self.bsz, self.bptt, self.device)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/wt103.pt")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--clip", type=float, default=0.25)
    p.add_argument("--eval-interval", type=int, default=4000)
    p.add_argument("--save-path", default="best.pt")
    p.add_argument("--local_rank", type=int, default=0)
    args = p.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(args.local_rank)
    args.device = torch.device("cuda", args.local_rank)
    corpus = torch.load(args.data)
    train_tokens = corpus["train"].chunk(world)[rank]
    valid_tokens = corpus["valid"].chunk(world)[rank]
    model = DDP(MemTransformerLM(len(corpus["vocab"])).to(args.device), device_ids=[args.local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=2.5e-4)
    trainer = LMTrainer(model, optimizer, Stream(train_tokens, 22, 150, args.device),
                        Stream(valid_tokens, 10, 150, args.device), args)
    trainer.fit()


if __name__ == "__main__":
    main()
