"""The ``salted-hash-split`` rule (``mlsleuth/scan/rules/reproducibility/salted_hash_split.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"salted-hash-split"}


def test_buckets_from_the_builtin_hash():
    src = """
        import pandas as pd

        def in_holdout(patient_id, pct=20):
            return hash(patient_id) % 100 < pct  # expect: salted-hash-split

        def fold_of(path, k):
            return abs(hash(str(path))) % k  # expect: salted-hash-split

        def token_bucket(token, n_buckets):
            return hash((token, "salt")) % n_buckets  # expect: salted-hash-split

        df = pd.read_csv("records.csv")
        train = df[df.user.map(lambda u: hash(u) % 10 != 0)]  # expect: salted-hash-split
        """
    check(src, RULE)


def test_stable_digests_and_in_process_hashing_stay_silent():
    src = """
        import hashlib
        import zlib

        def in_holdout(patient_id, pct=20):
            digest = hashlib.md5(patient_id.encode("utf-8")).hexdigest()
            return int(digest, 16) % 100 < pct

        def shard(key, n):
            return zlib.crc32(key.encode()) % n

        class Key:
            def __init__(self, a, b):
                self.a, self.b = a, b

            def __hash__(self):
                return hash((self.a, self.b)) % (2 ** 61)

        def dedupe(rows):
            seen = set()
            for r in rows:
                key = hash((r["id"], r["t"]))
                if key not in seen:
                    seen.add(key)
                    yield r

        def even_index(i):
            return hash(int(i)) % 2 == 0
        """
    check(src, RULE)


def test_integer_keys_for_a_port_or_per_clone_seeds_stay_silent():
    # a launcher picking a free port from the user id, and per-clone mask seeds from a tuple of range indices
    src = """
        import os
        import sys

        def free_port():
            return 2**15 + 2**14 + hash(os.getuid() if sys.platform != "win32" else 1) % 2**14

        def clone_seeds(n, base):
            return [int(hash((7, ind)) % 1e10) for ind in range(n)]

        def shard(names, n):
            return [hash((name, i)) % n for i, name in enumerate(names)]  # expect: salted-hash-split
        """
    check(src, RULE)
