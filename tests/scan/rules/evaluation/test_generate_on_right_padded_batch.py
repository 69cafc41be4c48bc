"""The ``generate-on-right-padded-batch`` rule (``mlsleuth/scan/rules/evaluation/generate_on_right_padded_batch.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

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
