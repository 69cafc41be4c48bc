from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments

from collate import WeightedChatCollator
from weighted_trainer import WeightedLMTrainer
from data import load_chat_dataset

model_name = "Qwen/Qwen2.5-0.5B"
tokenizer = AutoTokenizer.from_pretrained(model_name)
model = AutoModelForCausalLM.from_pretrained(model_name)
args = TrainingArguments(
    output_dir="out/weighted-sft",
    per_device_train_batch_size=4,
    gradient_accumulation_steps=8,
    learning_rate=2e-5,
    num_train_epochs=2,
    logging_steps=10,
    remove_unused_columns=False,
    bf16=True,
)
trainer = WeightedLMTrainer(model=model, args=args, train_dataset=load_chat_dataset(tokenizer),
                            data_collator=WeightedChatCollator(tokenizer), assistant_weight=2.0)
trainer.train()
