import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoTokenizer, DataCollatorForLanguageModeling


def build_loader(batch_size, model_name="Qwen/Qwen2.5-0.5B", max_len=1024):
    tok = AutoTokenizer.from_pretrained(model_name)
    ds = load_dataset("json", data_files="data/sft.jsonl", split="train")
    ds = ds.map(lambda ex: tok(ex["text"], truncation=True, max_length=max_len), remove_columns=ds.column_names)
    collate = DataCollatorForLanguageModeling(tok, mlm=False)
    return DataLoader(ds, batch_size=batch_size, shuffle=True, collate_fn=collate)
