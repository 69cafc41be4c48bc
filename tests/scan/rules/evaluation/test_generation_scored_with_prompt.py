"""The ``generation-scored-with-prompt`` rule (``mlsleuth/scan/rules/evaluation/generation_scored_with_prompt.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"generation-scored-with-prompt"}


def test_whole_rows_decoded_and_given_to_a_metric():
    src = """
    import evaluate
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2", padding_side="left")
    model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")
    rouge = evaluate.load("rouge")

    @torch.no_grad()
    def run_eval(prompts, references):
        enc = tokenizer(prompts, return_tensors="pt", padding=True).to("cuda")
        out = model.generate(**enc, max_new_tokens=64)
        preds = tokenizer.batch_decode(out, skip_special_tokens=True)  # expect: generation-scored-with-prompt
        return rouge.compute(predictions=preds, references=references)
    """
    check(src, RULE)
    (f,) = findings(src, "generation-scored-with-prompt")
    assert "`out`" in f.message and "`preds`" in f.message


def test_exact_match_per_example_and_list_filled_in_a_loop():
    src = """
    from sklearn.metrics import accuracy_score
    from transformers import AutoTokenizer, LlamaForCausalLM
    from peft import PeftModel

    tok = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
    base = LlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
    model = PeftModel.from_pretrained(base, "out/adapter")

    def exact_match(samples):
        correct = 0
        for s in samples:
            ids = tok(s["prompt"], return_tensors="pt").input_ids
            gen = model.generate(ids, max_new_tokens=8, return_dict_in_generate=True)
            answer = tok.decode(gen.sequences[0], skip_special_tokens=True)  # expect: generation-scored-with-prompt
            correct += answer.strip() == s["answer"]
        return correct / len(samples)

    def accuracy(samples, labels):
        predictions = []
        for s in samples:
            ids = tok(s, return_tensors="pt").input_ids
            out = model.generate(input_ids=ids, max_new_tokens=4)
            predictions.append(tok.decode(out[0], skip_special_tokens=True))  # expect: generation-scored-with-prompt
        return accuracy_score(labels, predictions)
    """
    check(src, RULE)


def test_model_from_a_helper_parameter():
    src = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")

    def score(net, prompt, target):
        enc = tokenizer(prompt, return_tensors="pt")
        out = net.generate(**enc, max_new_tokens=16)
        text = tokenizer.decode(out[0], skip_special_tokens=True)  # expect: generation-scored-with-prompt
        return float(text == target)

    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
    print(score(model, "2+2=", "4"))
    """
    check(src, RULE)


def test_new_tokens_only_stripped_text_display_and_seq2seq_are_fine():
    sliced = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    model = AutoModelForCausalLM.from_pretrained("gpt2")

    def run(prompts, refs, metric):
        enc = tokenizer(prompts, return_tensors="pt", padding=True)
        out = model.generate(**enc, max_new_tokens=32)
        preds = tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        return metric.compute(predictions=preds, references=refs)
    """
    split_off = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    model = AutoModelForCausalLM.from_pretrained("gpt2")

    def answer(prompt, target):
        out = model.generate(**tokenizer(prompt, return_tensors="pt"), max_new_tokens=32)
        text = tokenizer.decode(out[0], skip_special_tokens=True)
        reply = text.split("### Response:")[-1].strip()
        return reply == target
    """
    display = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    out = model.generate(**tokenizer("Once upon a time", return_tensors="pt"), max_new_tokens=50)
    text = tokenizer.decode(out[0], skip_special_tokens=True)
    if text == "":
        print("empty generation")
    print(text)
    """
    seq2seq = """
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer, AutoModelForCausalLM

    tokenizer = AutoTokenizer.from_pretrained("t5-small")
    model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")

    def run(texts, refs, metric):
        out = model.generate(**tokenizer(texts, return_tensors="pt", padding=True), max_new_tokens=64)
        preds = tokenizer.batch_decode(out, skip_special_tokens=True)
        return metric.compute(predictions=preds, references=refs)
    """
    embeds = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    model = AutoModelForCausalLM.from_pretrained("gpt2")

    def run(embeds, refs, metric):
        out = model.generate(inputs_embeds=embeds, max_new_tokens=32)
        preds = tokenizer.batch_decode(out, skip_special_tokens=True)
        return metric.compute(predictions=preds, references=refs)
    """
    for src in (sliced, split_off, display, seq2seq, embeds):
        check(src, RULE)
