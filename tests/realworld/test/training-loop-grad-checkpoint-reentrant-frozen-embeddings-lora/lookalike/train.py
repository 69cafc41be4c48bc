"""LoRA fine-tuning of roberta-large on a review-sentiment dataset with the HF Trainer."""
import numpy as np
from datasets import load_dataset
from transformers import AutoTokenizer, DataCollatorWithPadding, Trainer, TrainingArguments

from model import build_model

CFG = {
    "model_name": "roberta-large",
    "num_labels": 2,
    "lora_targets": ("query", "value"),
    "lora_r": 8,
    "lora_alpha": 16,
    "max_length": 512,
    "gradient_checkpointing": True,
    "output_dir": "runs/roberta-large-lora-imdb",
}


def main():
    tokenizer = AutoTokenizer.from_pretrained(CFG["model_name"])
    raw = load_dataset("imdb")

    def tokenize(batch):
        return tokenizer(batch["text"], truncation=True, max_length=CFG["max_length"])

    data = raw.map(tokenize, batched=True, remove_columns=["text"])
    model = build_model(CFG)

    def compute_metrics(eval_pred):
        logits, labels = eval_pred
        return {"accuracy": float((np.argmax(logits, axis=-1) == labels).mean())}

    args = TrainingArguments(
        output_dir=CFG["output_dir"],
        per_device_train_batch_size=16,
        per_device_eval_batch_size=32,
        learning_rate=4e-4,
        num_train_epochs=3,
        warmup_ratio=0.06,
        weight_decay=0.1,
        eval_strategy="epoch",
        save_strategy="epoch",
        bf16=True,
        gradient_checkpointing=CFG["gradient_checkpointing"],
        gradient_checkpointing_kwargs={"use_reentrant": True},
        logging_steps=50,
        report_to="none",
    )
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=data["train"],
        eval_dataset=data["test"],
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=compute_metrics,
    )
    trainer.train()
    trainer.save_model(CFG["output_dir"])


if __name__ == "__main__":
    main()
