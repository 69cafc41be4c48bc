import torch
from torch.utils.data import DataLoader
from transformers import LlamaForCausalLM, LlamaTokenizer

from instruction_dataset import InstructionDataset


def finetune(model_path="meta-llama/Llama-2-7b-hf", data="alpaca_data.json", epochs=3, lr=1e-4):
    tokenizer = LlamaTokenizer.from_pretrained(model_path)
    model = LlamaForCausalLM.from_pretrained(model_path, torch_dtype=torch.bfloat16, device_map="auto")
    model.train()
    loader = DataLoader(InstructionDataset(data, tokenizer), batch_size=4, shuffle=True)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            batch = {k: v.to(model.device) for k, v in batch.items()}
            loss = model(**batch).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            if step % 50 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
