import math

import torch
from transformers import AutoModelForCausalLM, HfArgumentParser

from config import EvalConfig
from gsm8k import build_prompt, load_examples
from tokenization import load_tokenizer


def batched(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


@torch.no_grad()
def answer_nll_batch(model, tokenizer, batch, cfg):
    """Teacher-forced NLL of the reference solution given the prompt."""
    prompts = [build_prompt(ex) for ex in batch]
    full = [p + " " + ex["answer"].strip() + tokenizer.eos_token for p, ex in zip(prompts, batch)]
    enc = tokenizer(full, return_tensors="pt", padding=True, truncation=True,
                    max_length=cfg.max_prompt_length + cfg.max_new_tokens).to(model.device)
    labels = enc["input_ids"].clone()
    labels[enc["attention_mask"] == 0] = -100
    for i, prompt in enumerate(prompts):
        prompt_len = len(tokenizer(prompt)["input_ids"])
        labels[i, :prompt_len] = -100

    logits = model(**enc).logits.float()
    shift_logits = logits[:, :-1].contiguous()
    shift_labels = labels[:, 1:].contiguous()
    token_nll = torch.nn.functional.cross_entropy(
        shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1),
        ignore_index=-100, reduction="sum",
    )
    return token_nll.item(), (shift_labels != -100).sum().item()


def main():
    (cfg,) = HfArgumentParser(EvalConfig).parse_args_into_dataclasses()
    tokenizer = load_tokenizer(cfg.model_name_or_path, padding_side=cfg.padding_side)
    model = AutoModelForCausalLM.from_pretrained(
        cfg.model_name_or_path, torch_dtype=torch.bfloat16, device_map="auto"
    )
    model.eval()

    examples = load_examples(cfg.data_file)
    total_nll, total_tokens = 0.0, 0
    for batch in batched(examples, cfg.batch_size):
        nll, n = answer_nll_batch(model, tokenizer, batch, cfg)
        total_nll += nll
        total_tokens += n
    print(f"GSM8K answer perplexity: {math.exp(total_nll / total_tokens):.3f}")


if __name__ == "__main__":
    main()
