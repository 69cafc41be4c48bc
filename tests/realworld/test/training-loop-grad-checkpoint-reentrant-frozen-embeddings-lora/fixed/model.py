from transformers import AutoModelForSequenceClassification

from lora import freeze_all_but, inject_lora


def build_model(cfg):
    model = AutoModelForSequenceClassification.from_pretrained(
        cfg["model_name"], num_labels=cfg["num_labels"]
    )
    n = inject_lora(model, targets=cfg["lora_targets"], r=cfg["lora_r"], alpha=cfg["lora_alpha"])
    print(f"injected {n} LoRA adapters")
    freeze_all_but(model, keep=("lora_", "classifier"))
    return model
