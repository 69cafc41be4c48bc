import sys

from transformers import AutoModelForCausalLM, TrainingArguments, set_seed

from packed_data import load_packed_blocks
from packed_trainer import PackedLMTrainer

if __name__ == "__main__":
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 42
    set_seed(seed)
    args = TrainingArguments(output_dir=f"runs/gpt2-packed-seed{seed}", seed=seed, per_device_train_batch_size=16,
                             learning_rate=3e-4, num_train_epochs=1, warmup_ratio=0.02, logging_steps=50)
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    trainer = PackedLMTrainer(model=model, args=args, train_dataset=load_packed_blocks("data/blocks.arrow"))
    trainer.train()
