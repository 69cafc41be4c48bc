import torch
from omegaconf import OmegaConf

from data import build_hateful_memes_loader
from model import MMFTransformer


def build_optimizer(model, config):
    groups = model.get_optimizer_parameters(config)
    return torch.optim.AdamW(groups, lr=config.optimizer.lr, eps=1e-8, weight_decay=config.optimizer.weight_decay)


def main():
    config = OmegaConf.load("configs/mmf_transformer.yaml")
    model = MMFTransformer(config.model).cuda()
    optimizer = build_optimizer(model, config)
    loader = build_hateful_memes_loader(config.data)
    model.train()
    for step, batch in enumerate(loader):
        batch = {k: v.cuda() for k, v in batch.items()}
        logits = model(batch["input_ids"], batch["attention_mask"], batch["image_feats"])
        loss = torch.nn.functional.cross_entropy(logits, batch["targets"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step} loss {loss.item():.4f}")
        if step >= config.training.max_updates:
            break


if __name__ == "__main__":
    main()
