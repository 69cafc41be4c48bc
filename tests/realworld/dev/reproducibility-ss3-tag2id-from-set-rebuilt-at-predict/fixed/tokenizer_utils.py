"""Builds a residue-level BERT tokenizer vocabulary in the output folder."""
import os

from transformers import BertTokenizerFast

from data import AMINO

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def get_tokenizer(output_dir):
    os.makedirs(output_dir, exist_ok=True)
    vocab_file = os.path.join(output_dir, "vocab.txt")
    if not os.path.exists(vocab_file):
        with open(vocab_file, "w") as f:
            f.write("\n".join(SPECIAL + list(AMINO)) + "\n")
    return BertTokenizerFast(vocab_file, do_lower_case=False)
