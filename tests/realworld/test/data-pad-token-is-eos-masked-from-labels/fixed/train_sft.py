from datasets import load_dataset
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, Trainer,
                          TrainingArguments)

MODEL = "deepseek-ai/deepseek-coder-1.3b-base"


def build_tokenizer():
    tok = AutoTokenizer.from_pretrained(MODEL)
    tok.add_special_tokens({"pad_token": "<|pad|>"})
    tok.padding_side = "right"
    return tok


def preprocess(tok, max_len=1024):
    def fn(batch):
        texts = [f"{q}\n{a}{tok.eos_token}" for q, a in zip(batch["instruction"], batch["output"])]
        return tok(texts, truncation=True, max_length=max_len)
    return fn


if __name__ == "__main__":
    tok = build_tokenizer()
    raw = load_dataset("json", data_files="code_instructions.jsonl")["train"]
    ds = raw.map(preprocess(tok), batched=True, remove_columns=raw.column_names)
    collator = DataCollatorForLanguageModeling(tokenizer=tok, mlm=False)
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    model.resize_token_embeddings(len(tok))
    args = TrainingArguments(output_dir="ckpt/coder-sft", per_device_train_batch_size=8, learning_rate=2e-5,
                             num_train_epochs=3, logging_steps=20, bf16=True)
    Trainer(model=model, args=args, train_dataset=ds, data_collator=collator).train()
