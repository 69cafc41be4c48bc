"""Train a small classifier, then score it with a 2-process distributed test."""
import socket
import tempfile

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler

from data import ToyClassificationSet
from dist_utils import collect_results, init_dist, multi_proc_test
from model import MLPClassifier

WORLD_SIZE = 2


def train(ckpt_path):
    torch.manual_seed(0)
    train_set = ToyClassificationSet(n=1500, seed=1)
    model = MLPClassifier()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(5):
        for x, y in DataLoader(train_set, batch_size=64, shuffle=True):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    torch.save(model.state_dict(), ckpt_path)
    test_set = ToyClassificationSet(n=501, seed=2)
    single = multi_proc_test(model, DataLoader(test_set, batch_size=32))
    print(f"single-process test accuracy: {test_set.evaluate(single):.3f}")


def worker(rank, ckpt_path, port):
    init_dist(rank, WORLD_SIZE, port)
    torch.set_num_threads(1)
    model = MLPClassifier()
    model.load_state_dict(torch.load(ckpt_path))
    test_set = ToyClassificationSet(n=501, seed=2)
    sampler = DistributedSampler(test_set, num_replicas=WORLD_SIZE, rank=rank, shuffle=False)
    loader = DataLoader(test_set, batch_size=32, sampler=sampler)
    outputs = multi_proc_test(model, loader)
    results = collect_results(outputs, len(test_set))
    if rank == 0:
        print(f"distributed test accuracy ({WORLD_SIZE} ranks): {test_set.evaluate(results):.3f}")
    torch.distributed.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = f"{tmp}/classifier.pth"
        train(ckpt)
        mp.spawn(worker, args=(ckpt, free_port()), nprocs=WORLD_SIZE)
