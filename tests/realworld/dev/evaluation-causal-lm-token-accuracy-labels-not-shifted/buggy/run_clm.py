"""Continued pretraining of a small causal LM on an in-domain corpus."""
import math
from dataclasses import dataclass
from itertools import chain

from datasets import load_dataset
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    DataCollatorForLanguageModeling,
    HfArgumentParser,
    Trainer,
    TrainingArguments,
    set_seed,
)

from metrics import compute_metrics, preprocess_logits_for_metrics


@dataclass
class DataArgs:
    model_name: str = "EleutherAI/pythia-410m"
    train_file: str = "corpus/train.txt"
    validation_file: str = "corpus/valid.txt"
    block_size: int = 1024


def group_texts(examples, block_size):
    joined = {k: list(chain(*examples[k])) for k in examples.keys()}
    total = (len(joined["input_ids"]) // block_size) * block_size
    return {
        k: [t[i:i + block_size] for i in range(0, total, block_size)]
        for k, t in joined.items()
    }


def main():
    data_args, training_args = HfArgumentParser((DataArgs, TrainingArguments)).parse_args_into_dataclasses()
    set_seed(training_args.seed)

    tokenizer = AutoTokenizer.from_pretrained(data_args.model_name)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(data_args.model_name)

    raw = load_dataset("text", data_files={"train": data_args.train_file, "validation": data_args.validation_file})
    tokenized = raw.map(lambda b: tokenizer(b["text"]), batched=True, remove_columns=["text"])
    lm_data = tokenized.map(lambda b: group_texts(b, data_args.block_size), batched=True)

    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=lm_data["train"],
        eval_dataset=lm_data["validation"],
        data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False),
        compute_metrics=compute_metrics,
        preprocess_logits_for_metrics=preprocess_logits_for_metrics,
    )
    trainer.train()
    metrics = trainer.evaluate()
    metrics["perplexity"] = math.exp(metrics["eval_loss"])
    trainer.log_metrics("eval", metrics)
    trainer.save_metrics("eval", metrics)


if __name__ == "__main__":
    main()
