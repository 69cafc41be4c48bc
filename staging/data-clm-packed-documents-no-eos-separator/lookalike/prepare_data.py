from itertools import chain

from datasets import load_dataset


def load_raw(cfg, eos_text):
    raw = load_dataset("json", data_files={"train": cfg["train_file"], "validation": cfg["validation_file"]})
    raw = raw.filter(lambda ex: len(ex["text"].strip()) > 0)
    raw = raw.map(lambda ex: {"text": ex["text"].rstrip() + eos_text})
    return raw


def build_lm_datasets(raw, tokenizer, block_size, num_proc=8):
    text_column = "text"

    def tokenize_function(examples):
        return tokenizer(examples[text_column])

    tokenized = raw.map(
        tokenize_function,
        batched=True,
        num_proc=num_proc,
        remove_columns=raw["train"].column_names,
        desc="Running tokenizer on dataset",
    )

    def group_texts(examples):
        concatenated = {k: list(chain(*examples[k])) for k in examples.keys()}
        total_length = len(concatenated[list(examples.keys())[0]])
        total_length = (total_length // block_size) * block_size
        result = {
            k: [t[i:i + block_size] for i in range(0, total_length, block_size)]
            for k, t in concatenated.items()
        }
        result["labels"] = result["input_ids"].copy()
        return result

    return tokenized.map(
        group_texts,
        batched=True,
        num_proc=num_proc,
        desc=f"Grouping texts in chunks of {block_size}",
    )
