import itertools
import json
import random


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def _cycle_to(rows, n):
    return list(itertools.islice(itertools.cycle(rows), n))


def interleave_over(sources, seed):
    longest = max(len(s) for s in sources)
    padded = [_cycle_to(s, longest) for s in sources]
    mixed = [row for group in zip(*padded) for row in group]
    random.Random(seed).shuffle(mixed)
    return mixed


def load_mixture(paths, val_split=0.1, seed=0):
    sources = [read_jsonl(p) for p in paths]
    rng = random.Random(seed)
    train_src, val_rows = [], []
    for s in sources:
        s = s[:]
        rng.shuffle(s)
        cut = int(len(s) * (1 - val_split))
        train_src.append(s[:cut])
        val_rows.extend(s[cut:])
    return interleave_over(train_src, seed), val_rows
