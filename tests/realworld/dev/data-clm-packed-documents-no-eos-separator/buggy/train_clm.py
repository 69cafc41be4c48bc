import math

from transformers import (AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments,
                          default_data_collator, set_seed)

from prepare_data import build_lm_datasets, load_raw

CFG = {
    "model_name_or_path": "EleutherAI/gpt-j-6b",
    "train_file": "data/support_articles/train.jsonl",
    "validation_file": "data/support_articles/valid.jsonl",
    "block_size": 1024,
    "output_dir": "runs/gptj-support-articles",
    "seed": 42,
}


def main(cfg=CFG):
    set_seed(cfg["seed"])
    tokenizer = AutoTokenizer.from_pretrained(cfg["model_name_or_path"])
    model = AutoModelForCausalLM.from_pretrained(cfg["model_name_or_path"], torch_dtype="auto")

    raw = load_raw(cfg)
    lm_datasets = build_lm_datasets(raw, tokenizer, cfg["block_size"])

    args = TrainingArguments(
        output_dir=cfg["output_dir"],
        per_device_train_batch_size=2,
        per_device_eval_batch_size=2,
        gradient_accumulation_steps=16,
        learning_rate=1e-5,
        num_train_epochs=2,
        warmup_ratio=0.03,
        lr_scheduler_type="cosine",
        bf16=True,
        gradient_checkpointing=True,
        eval_strategy="steps",
        eval_steps=500,
        save_steps=500,
        logging_steps=20,
        report_to="none",
    )
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=lm_datasets["train"],
        eval_dataset=lm_datasets["validation"],
        tokenizer=tokenizer,
        data_collator=default_data_collator,
    )
    trainer.train()
    metrics = trainer.evaluate()
    metrics["perplexity"] = math.exp(metrics["eval_loss"])
    trainer.log_metrics("eval", metrics)
    trainer.save_model()


if __name__ == "__main__":
    main()
