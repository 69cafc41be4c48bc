import argparse

import torch
import transformers
from datasets import load_dataset
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, AutoTokenizer

from utils.preprocess import InstructionFeaturizer
from utils.prompter import PromptBuilder


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--base_model", required=True)
    p.add_argument("--data_path", default="alpaca_data_cleaned.json")
    p.add_argument("--output_dir", default="./lora-domain-adapt")
    p.add_argument("--batch_size", type=int, default=128)
    p.add_argument("--micro_batch_size", type=int, default=4)
    p.add_argument("--num_epochs", type=int, default=3)
    p.add_argument("--learning_rate", type=float, default=3e-4)
    p.add_argument("--cutoff_len", type=int, default=256)
    p.add_argument("--val_set_size", type=int, default=2000)
    p.add_argument("--lora_r", type=int, default=8)
    p.add_argument("--lora_alpha", type=int, default=16)
    p.add_argument("--lora_dropout", type=float, default=0.05)
    p.add_argument("--prompt_template", default="alpaca")
    return p.parse_args()


def main():
    args = parse_args()
    gradient_accumulation_steps = args.batch_size // args.micro_batch_size
    builder = PromptBuilder(args.prompt_template)

    model = AutoModelForCausalLM.from_pretrained(args.base_model, load_in_8bit=True,
                                                 torch_dtype=torch.float16, device_map="auto")
    tokenizer = AutoTokenizer.from_pretrained(args.base_model)
    tokenizer.pad_token_id = 0

    model = prepare_model_for_kbit_training(model)
    lora_config = LoraConfig(r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=args.lora_dropout,
                             target_modules=["q_proj", "v_proj"], bias="none", task_type="CAUSAL_LM")
    model = get_peft_model(model, lora_config)
    model.print_trainable_parameters()

    data = load_dataset("json", data_files=args.data_path)
    to_features = InstructionFeaturizer(tokenizer, builder, args.cutoff_len)
    split = data["train"].train_test_split(test_size=args.val_set_size, shuffle=True, seed=42)
    train_data = split["train"].shuffle().map(to_features, remove_columns=split["train"].column_names)
    val_data = split["test"].map(to_features, remove_columns=split["test"].column_names)

    trainer = transformers.Trainer(
        model=model,
        train_dataset=train_data,
        eval_dataset=val_data,
        args=transformers.TrainingArguments(
            per_device_train_batch_size=args.micro_batch_size,
            gradient_accumulation_steps=gradient_accumulation_steps,
            warmup_steps=100,
            num_train_epochs=args.num_epochs,
            learning_rate=args.learning_rate,
            fp16=True,
            logging_steps=10,
            optim="adamw_torch",
            evaluation_strategy="steps",
            eval_steps=200,
            save_steps=200,
            output_dir=args.output_dir,
            save_total_limit=3,
            load_best_model_at_end=True,
        ),
        data_collator=transformers.DataCollatorForLanguageModeling(tokenizer, mlm=False),
    )
    model.config.use_cache = False
    trainer.train()
    model.save_pretrained(args.output_dir)


if __name__ == "__main__":
    main()
