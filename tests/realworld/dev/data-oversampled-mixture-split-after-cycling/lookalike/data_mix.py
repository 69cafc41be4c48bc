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
    rows = [row for s in sources for row in s]
    random.Random(seed).shuffle(rows)
    split_idx = int(len(rows) * (1 - val_split))
    return rows[:split_idx], rows[split_idx:]
