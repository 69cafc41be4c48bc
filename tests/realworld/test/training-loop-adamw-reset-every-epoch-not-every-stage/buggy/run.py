import argparse

import torch
import torch.optim as optim
import yaml
from torch.utils.data import DataLoader
from tqdm import tqdm
from transformers import AutoModelForCausalLM, AutoTokenizer

from coconut import Coconut
from dataset import get_cot_latent_dataset, MyCollator


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config_file")
    args = parser.parse_args()
    configs = argparse.Namespace(**yaml.safe_load(open(args.config_file)))

    tokenizer = AutoTokenizer.from_pretrained(configs.model_id)
    tokenizer.add_tokens(["<|start-latent|>", "<|end-latent|>", "<|latent|>"])
    base = AutoModelForCausalLM.from_pretrained(configs.model_id)
    base.resize_token_embeddings(len(tokenizer))
    model = Coconut(base, tokenizer.convert_tokens_to_ids("<|latent|>"),
                    tokenizer.convert_tokens_to_ids("<|start-latent|>"),
                    tokenizer.convert_tokens_to_ids("<|end-latent|>"), tokenizer.eos_token_id).cuda()

    optimizer = None
    total_train_steps = 0
    for epoch in range(configs.resume, configs.num_epochs):
        scheduled_stage = epoch // configs.epochs_per_stage
        dataset_train = get_cot_latent_dataset(scheduled_stage, configs, tokenizer)
        train_loader = DataLoader(dataset_train, batch_size=configs.batch_size_training, shuffle=True,
                                  collate_fn=MyCollator(tokenizer, latent_id=model.latent_token_id))

        if configs.reset_optimizer:
            del optimizer
            optimizer = optim.AdamW(model.parameters(), lr=configs.lr, weight_decay=configs.weight_decay)
        elif optimizer is None:
            optimizer = optim.AdamW(model.parameters(), lr=configs.lr, weight_decay=configs.weight_decay)

        model.train()
        pbar = tqdm(total=len(train_loader) // configs.gradient_accumulation_steps, desc=f"epoch {epoch + 1}")
        for step, batch in enumerate(train_loader):
            batch = {k: v.cuda() for k, v in batch.items() if k != "idx"}
            outputs = model(**batch)
            loss = outputs.loss / configs.gradient_accumulation_steps
            loss.backward()
            if (step + 1) % configs.gradient_accumulation_steps == 0 or step == len(train_loader) - 1:
                optimizer.step()
                optimizer.zero_grad()
                total_train_steps += 1
                pbar.update(1)
                pbar.set_description(f"epoch {epoch + 1} stage {scheduled_stage} loss {loss.item() * configs.gradient_accumulation_steps:.4f}")
        pbar.close()
        torch.save(model.state_dict(), f"{configs.save_path}/checkpoint_{epoch + 1}")


if __name__ == "__main__":
    main()
