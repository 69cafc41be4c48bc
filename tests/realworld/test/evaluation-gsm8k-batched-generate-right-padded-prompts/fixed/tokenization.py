from transformers import AutoTokenizer


def load_tokenizer(model_name_or_path, padding_side="right"):
    """Same tokenizer setup as the SFT run (pad with EOS, right side)."""
    tokenizer = AutoTokenizer.from_pretrained(model_name_or_path, use_fast=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = padding_side
    return tokenizer
