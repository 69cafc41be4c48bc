import argparse

import torch

from exp.exp_main import Exp_Main

parser = argparse.ArgumentParser(description="Long-sequence forecasting")
parser.add_argument("--seq_len", type=int, default=96)
parser.add_argument("--label_len", type=int, default=48)
parser.add_argument("--pred_len", type=int, default=24)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--learning_rate", type=float, default=0.005)
parser.add_argument("--train_epochs", type=int, default=3)
parser.add_argument("--num_workers", type=int, default=0)
parser.add_argument("--itr", type=int, default=1)

if __name__ == "__main__":
    args = parser.parse_args()
    for ii in range(args.itr):
        torch.manual_seed(2021 + ii)
        exp = Exp_Main(args)
        exp.train()
        exp.test()
