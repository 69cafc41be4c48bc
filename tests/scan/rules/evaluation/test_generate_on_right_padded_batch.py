"""The ``generate-on-right-padded-batch`` rule (``mlsleuth/scan/rules/evaluation/generate_on_right_padded_batch.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = "generate-on-right-padded-batch"


def test_padding_side_set_right_then_batched_generate():
    check(
        """
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tok = AutoTokenizer.from_pretrained("gpt2")  # expect: generate-on-right-padded-batch
        tok.pad_token = tok.eos_token
        tok.padding_side = "right"
        model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda").eval()

        def run(prompts):
            enc = tok(prompts, return_tensors="pt", padding=True).to("cuda")
            return model.generate(**enc, max_new_tokens=32)
        """,
        {RULE},
    )


def test_from_pretrained_keyword_and_input_ids_argument():
    check(
        """
        from transformers import AutoTokenizer, LlamaForCausalLM as LM

        def evaluate(path, batches):
            tokenizer = AutoTokenizer.from_pretrained(path, padding_side="right")  # expect: generate-on-right-padded-batch
            model = LM.from_pretrained(path)
            outs = []
            for texts in batches:
                enc = tokenizer(texts, padding="longest", return_tensors="pt")
                outs.append(model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]))
            return outs
        """,
        {RULE},
    )


def test_gpt2_tokenizer_default_right_and_peft_wrapped_model():
    check(
        """
        from peft import get_peft_model
        from transformers import GPT2LMHeadModel, GPT2TokenizerFast

        tok = GPT2TokenizerFast.from_pretrained("gpt2")  # expect: generate-on-right-padded-batch
        tok.pad_token = tok.eos_token
        base = GPT2LMHeadModel.from_pretrained("gpt2")
        model = get_peft_model(base, lora_cfg)

        def sample(batch):
            ids = tok(batch, padding=True, return_tensors="pt").input_ids
            return model.generate(ids, max_new_tokens=20)
        """,
        {RULE},
    )


def test_helper_default_across_files_and_parameters(tmp_path):
    check_project(
        tmp_path,
        {
            "common.py": """
                from transformers import AutoModelForCausalLM, AutoTokenizer

                def load_tokenizer(path, padding_side="right"):
                    tok = AutoTokenizer.from_pretrained(path)
                    tok.padding_side = padding_side
                    return tok

                def load_model(path):
                    return AutoModelForCausalLM.from_pretrained(path)
            """,
            "evaluate.py": """
                import torch
                from common import load_model, load_tokenizer

                @torch.no_grad()
                def answer(model, tokenizer, prompts, device):
                    enc = tokenizer(prompts, return_tensors="pt", padding=True).to(device)
                    return model.generate(**enc, max_new_tokens=64)

                def main():
                    tokenizer = load_tokenizer("out")  # expect: generate-on-right-padded-batch
                    model = load_model("out").cuda().eval()
                    answer(model, tokenizer, ["q1", "q2"], "cuda")
            """,
        },
        {RULE},
    )


def test_left_padding_and_single_prompt_and_seq2seq_are_silent(tmp_path):
    check_project(
        tmp_path,
        {
            "common.py": """
                from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

                def load_tokenizer(path, padding_side="right"):
                    tok = AutoTokenizer.from_pretrained(path)
                    tok.padding_side = padding_side
                    return tok
            """,
            "evaluate.py": """
                from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM
                from common import load_tokenizer

                def batched_left(prompts):
                    tokenizer = load_tokenizer("out", padding_side="left")
                    model = AutoModelForCausalLM.from_pretrained("out")
                    enc = tokenizer(prompts, return_tensors="pt", padding=True)
                    return model.generate(**enc)

                def one_at_a_time(prompts):
                    tokenizer = load_tokenizer("out")
                    model = AutoModelForCausalLM.from_pretrained("out")
                    outs = []
                    for p in prompts:
                        enc = tokenizer(p, return_tensors="pt")
                        outs.append(model.generate(**enc))
                    return outs

                def encoder_decoder(prompts):
                    tokenizer = load_tokenizer("t5")
                    model = AutoModelForSeq2SeqLM.from_pretrained("t5")
                    enc = tokenizer(prompts, return_tensors="pt", padding=True)
                    return model.generate(**enc)

                def switched_for_generation(prompts):
                    tokenizer = load_tokenizer("out")
                    model = AutoModelForCausalLM.from_pretrained("out")
                    tokenizer.padding_side = "left"
                    enc = tokenizer(prompts, return_tensors="pt", padding=True)
                    return model.generate(**enc)

                def unknown_default(prompts):
                    from transformers import AutoTokenizer
                    tokenizer = AutoTokenizer.from_pretrained("out")
                    model = AutoModelForCausalLM.from_pretrained("out")
                    enc = tokenizer(prompts, return_tensors="pt", padding=True)
                    return model.generate(**enc)
            """,
        },
        {RULE},
    )


# Shapes written independently by another author of the same family (famD, from public reports).


def test_training_tokenizer_reused_for_batched_generation():
    src = """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")  # expect: generate-on-right-padded-batch
    tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "right"  # for the training loss
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").to("cuda")

    @torch.no_grad()
    def evaluate(prompts):
        enc = tokenizer(prompts, return_tensors="pt", padding=True).to("cuda")
        out = model.generate(**enc, max_new_tokens=64)
        return tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
    """
    check(src, {RULE})
    (f,) = findings(src, "generate-on-right-padded-batch")
    assert "right" in f.message


def test_input_ids_keyword_peft_model_and_from_pretrained_side():
    src = """
    from peft import get_peft_model, LoraConfig
    from transformers import AutoTokenizer, GPT2LMHeadModel

    tok = AutoTokenizer.from_pretrained("gpt2", padding_side="right")  # expect: generate-on-right-padded-batch
    base = GPT2LMHeadModel.from_pretrained("gpt2")
    model = get_peft_model(base, LoraConfig(r=8, task_type="CAUSAL_LM"))

    def sample(batch_texts):
        batch = tok(batch_texts, padding="max_length", max_length=128, truncation=True, return_tensors="pt")
        ids = batch["input_ids"]
        gen = model.generate(input_ids=ids, attention_mask=batch["attention_mask"], max_new_tokens=32)
        gen2 = model.generate(batch.input_ids, max_new_tokens=32)
        return gen, gen2
    """
    check(src, {RULE})


def test_model_through_a_helper_parameter_and_accelerate():
    src = """
    from accelerate import Accelerator
    from transformers import AutoModelForCausalLM, AutoTokenizer

    accelerator = Accelerator()
    tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")
    tokenizer.padding_side = "right"  # expect: generate-on-right-padded-batch

    def generate_answers(net, questions):
        enc = tokenizer(questions, padding=True, return_tensors="pt")
        return net.generate(**enc, max_new_tokens=128)

    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
    model = accelerator.prepare(model)
    answers = generate_answers(accelerator.unwrap_model(model), val_questions)
    """
    # the prepared model is not followed through accelerator.prepare: the helper is reached by unwrap_model(model),
    # whose argument was last bound to prepare(...), which the scan cannot read, so it stays silent
    check(src.replace("  # expect: generate-on-right-padded-batch", ""), {RULE})
    # Without prepare() the model reaches generate through a helper parameter and unwrap_model; famD's rule
    # followed that shape, this one does not yet (a known gap, not asserted either way).


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
        check(src, {RULE})
