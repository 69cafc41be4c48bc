"""The ``right-padded-batch-generation`` rule (``mlsleuth/scan/rules/evaluation/right_padded_batch_generation.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"right-padded-batch-generation"}


def test_training_tokenizer_reused_for_batched_generation():
    src = """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
    tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "right"  # for the training loss
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").to("cuda")

    @torch.no_grad()
    def evaluate(prompts):
        enc = tokenizer(prompts, return_tensors="pt", padding=True).to("cuda")
        out = model.generate(**enc, max_new_tokens=64)  # expect: right-padded-batch-generation
        return tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
    """
    check(src, RULE)
    (f,) = findings(src, "right-padded-batch-generation")
    assert "tokenizer" in f.message and "line 6" in f.message


def test_input_ids_keyword_peft_model_and_from_pretrained_side():
    src = """
    from peft import get_peft_model, LoraConfig
    from transformers import AutoTokenizer, GPT2LMHeadModel

    tok = AutoTokenizer.from_pretrained("gpt2", padding_side="right")
    base = GPT2LMHeadModel.from_pretrained("gpt2")
    model = get_peft_model(base, LoraConfig(r=8, task_type="CAUSAL_LM"))

    def sample(batch_texts):
        batch = tok(batch_texts, padding="max_length", max_length=128, truncation=True, return_tensors="pt")
        ids = batch["input_ids"]
        gen = model.generate(input_ids=ids, attention_mask=batch["attention_mask"], max_new_tokens=32)  # expect: right-padded-batch-generation
        gen2 = model.generate(batch.input_ids, max_new_tokens=32)  # expect: right-padded-batch-generation
        return gen, gen2
    """
    check(src, RULE)


def test_model_through_a_helper_parameter_and_accelerate():
    src = """
    from accelerate import Accelerator
    from transformers import AutoModelForCausalLM, AutoTokenizer

    accelerator = Accelerator()
    tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")
    tokenizer.padding_side = "right"

    def generate_answers(net, questions):
        enc = tokenizer(questions, padding=True, return_tensors="pt")
        return net.generate(**enc, max_new_tokens=128)  # expect: right-padded-batch-generation

    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
    model = accelerator.prepare(model)
    answers = generate_answers(accelerator.unwrap_model(model), val_questions)
    """
    # the prepared model is not followed through accelerator.prepare: the helper is reached by unwrap_model(model),
    # whose argument was last bound to prepare(...), which the scan cannot read, so it stays silent
    check(src.replace("  # expect: right-padded-batch-generation", ""), RULE)
    direct = src.replace("    model = accelerator.prepare(model)\n", "")
    check(direct, RULE)


def test_left_padding_single_prompts_and_encoder_decoders_are_fine():
    switched = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    tokenizer.padding_side = "right"
    model = AutoModelForCausalLM.from_pretrained("gpt2")

    def evaluate(prompts):
        tokenizer.padding_side = "left"
        enc = tokenizer(prompts, return_tensors="pt", padding=True)
        out = model.generate(**enc, max_new_tokens=20)
        tokenizer.padding_side = "right"
        return out
    """
    per_call = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    tokenizer.padding_side = "right"
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    enc = tokenizer(prompts, return_tensors="pt", padding=True, padding_side="left")
    out = model.generate(**enc, max_new_tokens=20)
    """
    single = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    tokenizer.padding_side = "right"
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    for prompt in prompts:
        enc = tokenizer(prompt, return_tensors="pt")
        out = model.generate(**enc, max_new_tokens=20)
    """
    seq2seq = """
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer, AutoModelForCausalLM

    tokenizer = AutoTokenizer.from_pretrained("t5-small")
    tokenizer.padding_side = "right"
    model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")
    enc = tokenizer(texts, return_tensors="pt", padding=True)
    out = model.generate(**enc, max_new_tokens=20)
    """
    left_from_start = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2", padding_side="left")
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    enc = tokenizer(prompts, return_tensors="pt", padding=True)
    out = model.generate(**enc, max_new_tokens=20)
    """
    single_padded = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    tokenizer.padding_side = "right"
    model = AutoModelForCausalLM.from_pretrained("gpt2")

    def answer(question):
        prompt = f"Q: {question}\\nA:"
        enc = tokenizer(prompt, return_tensors="pt", padding=True)
        return model.generate(**enc, max_new_tokens=20)
    """
    for src in (switched, per_call, single, seq2seq, left_from_start, single_padded):
        check(src, RULE)
