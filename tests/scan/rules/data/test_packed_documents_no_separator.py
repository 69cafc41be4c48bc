"""The ``packed-documents-no-separator`` rule (``mlsleuth/scan/rules/data/packed_documents_no_separator.py``)."""

from __future__ import annotations

from scan.helpers import check, project_reported, write_project

RULE = "packed-documents-no-separator"

GROUP_TEXTS = """
from itertools import chain


def build(raw, tokenizer, block_size):
    def tokenize_function(examples):
        return tokenizer(examples["text"])

    tokenized = raw.map(tokenize_function, batched=True, remove_columns=["text"])

    def group_texts(examples):
        concatenated = {k: list(chain(*examples[k])) for k in examples.keys()}
        total_length = len(concatenated["input_ids"]) // block_size * block_size
        result = {k: [t[i:i + block_size] for i in range(0, total_length, block_size)] for k, t in concatenated.items()}
        result["labels"] = result["input_ids"].copy()
        return result

    return tokenized.map(group_texts, batched=True)
"""


def test_group_texts_with_a_gpt2_family_tokenizer(tmp_path):
    write_project(tmp_path, {
        "prepare.py": GROUP_TEXTS,
        "train.py": """
            from transformers import AutoTokenizer
            from prepare import build

            tokenizer = AutoTokenizer.from_pretrained("EleutherAI/gpt-neo-125M")
        """,
    })
    assert project_reported(tmp_path, {RULE}) == {(RULE, "prepare.py", 6)}


def test_sum_of_lists_and_from_iterable_in_one_file():
    src = """
    import itertools
    import tiktoken

    enc = tiktoken.get_encoding("gpt2")

    def pack(docs, block_size):
        ids = [enc.encode_ordinary(d) for d in docs]
        stream = sum(ids, [])  # expect: packed-documents-no-separator
        return [stream[i:i + block_size] for i in range(0, len(stream) - block_size, block_size)]

    def pack2(tokenized, ctx_len):
        flat = list(itertools.chain.from_iterable(tokenized["input_ids"]))
        return [flat[s:s + ctx_len] for s in range(0, len(flat), ctx_len)]
    """
    # the first packing site is reported once per file, at the packing when several tokenizer calls exist
    check(src, {RULE})


def test_negative_eos_appended_unknown_tokenizer_or_no_blocks(tmp_path):
    write_project(tmp_path / "eos", {
        "prepare.py": GROUP_TEXTS.replace('return tokenizer(examples["text"])',
                                          'return tokenizer([t + tokenizer.eos_token for t in examples["text"]])'),
        "train.py": 'MODEL = "gpt2"\n',
    })
    write_project(tmp_path / "llama", {
        "prepare.py": GROUP_TEXTS,
        "train.py": 'MODEL = "meta-llama/Llama-2-7b-hf"\n',
    })
    assert not project_reported(tmp_path / "eos", {RULE})
    assert not project_reported(tmp_path / "llama", {RULE})
    src = """
    from itertools import chain
    MODEL = "gpt2"

    def flatten(batches):
        return list(chain(*batches))
    """
    check(src, {RULE})
