"""The ``cache-key-omits-setting`` rule (``mlsleuth/scan/rules/data/cache_key_omits_setting.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "cache-key-omits-setting"


def test_features_cached_without_max_seq_length():
    src = """
    import os
    import torch

    def load_and_cache_examples(args, tokenizer, split):
        cached_features_file = os.path.join(
            args.data_dir,
            "cached_{}_{}".format(split, os.path.basename(args.model_name_or_path)),  # expect: cache-key-omits-setting
        )
        if os.path.exists(cached_features_file) and not args.overwrite_cache:
            features = torch.load(cached_features_file)
        else:
            examples = read_examples(args.data_dir, split)
            features = convert_examples_to_features(examples, tokenizer, args.max_seq_length)
            torch.save(features, cached_features_file)
        return features
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "args.max_seq_length" in f.message


def test_pickle_cache_in_dataset_init_with_length_parameter():
    src = """
    import os
    import pickle

    class TextDataset:
        def __init__(self, tokenizer, file_path, block_size=512):
            directory, filename = os.path.split(file_path)
            cache = os.path.join(directory, "cached_lm_" + filename)  # expect: cache-key-omits-setting
            if os.path.exists(cache):
                with open(cache, "rb") as handle:
                    self.examples = pickle.load(handle)
            else:
                ids = tokenizer.encode(open(file_path).read())
                self.examples = [ids[i:i + block_size] for i in range(0, len(ids) - block_size + 1, block_size)]
                with open(cache, "wb") as handle:
                    pickle.dump(self.examples, handle)
    """
    check(src, {RULE})


def test_pathlib_cache_and_save_to_disk_with_tokenize_helper():
    src = """
    from pathlib import Path
    import numpy as np
    from datasets import load_from_disk

    def mel_features(cfg, wav_paths, cache_dir):
        path = Path(cache_dir) / "mels.npy"  # expect: cache-key-omits-setting
        if path.exists():
            return np.load(path)
        feats = np.stack([compute_mels(p, n_mels=cfg.n_mels, hop=cfg.hop_length) for p in wav_paths])
        np.save(path, feats)
        return feats

    def tokenized(raw, tokenizer, out_dir, max_length):
        target = f"{out_dir}/tokenized"  # expect: cache-key-omits-setting
        if Path(target).exists():
            return load_from_disk(target)

        def tok(batch):
            return tokenizer(batch["text"], truncation=True, max_length=max_length)

        ds = raw.map(tok, batched=True)
        ds.save_to_disk(target)
        return ds
    """
    check(src, {RULE})


def test_negative_key_has_setting_or_cache_is_setting_free():
    src = """
    import hashlib
    import json
    import os
    import torch

    def hf_legacy(args, tokenizer, split, task):
        cached = os.path.join(args.data_dir, "cached_{}_{}_{}".format(split, str(args.max_seq_length), task))
        if os.path.exists(cached):
            return torch.load(cached)
        features = convert(read(args.data_dir), tokenizer, max_length=args.max_seq_length)
        torch.save(features, cached)
        return features

    def in_folder(args, tokenizer):
        cache_dir = os.path.join(args.output_dir, f"len{args.max_len}")
        cached = os.path.join(cache_dir, "train.pt")
        if os.path.exists(cached):
            return torch.load(cached)
        data = encode(tokenizer, max_len=args.max_len)
        torch.save(data, cached)
        return data

    def raw_ids(args, tokenizer, split):
        cached = os.path.join(args.data_dir, f"cached_{split}")
        if os.path.exists(cached):
            return torch.load(cached)
        ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in read(args.data_dir, split)]
        torch.save(ids, cached)
        collate = make_collate(tokenizer, args.max_seq_length)
        return ids, collate

    def hashed(cfg, texts):
        key = hashlib.md5(json.dumps(vars(cfg), sort_keys=True).encode()).hexdigest()
        cached = os.path.join("cache", key + ".pt")
        if os.path.exists(cached):
            return torch.load(cached)
        out = encode(texts, max_len=cfg.max_len)
        torch.save(out, cached)
        return out

    def checkpoint(model, args):
        path = os.path.join(args.output_dir, "model.pt")
        if os.path.exists(path):
            model.load_state_dict(torch.load(path))
        torch.save(model.state_dict(), path)
    """
    check(src, {RULE})
