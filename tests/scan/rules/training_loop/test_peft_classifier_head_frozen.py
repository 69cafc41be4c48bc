"""The ``peft-classifier-head-frozen`` rule (``mlsleuth/scan/rules/training_loop/peft_classifier_head_frozen.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"peft-classifier-head-frozen"}


def test_lora_config_without_task_type_on_a_new_head():
    src = """
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments

    model = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=5)
    lora_config = LoraConfig(r=8, lora_alpha=16, target_modules=["query", "value"], lora_dropout=0.1)
    model = get_peft_model(model, lora_config)  # expect: peft-classifier-head-frozen
    model.print_trainable_parameters()
    trainer = Trainer(model=model, args=TrainingArguments("out"), train_dataset=train_ds)
    trainer.train()
    """
    check(src, RULE)
    (f,) = findings(src, "peft-classifier-head-frozen")
    assert "AutoModelForSequenceClassification" in f.message and "task_type" in f.message


def test_wrong_task_type_kbit_wrapper_and_inline_config():
    src = """
    import torch
    import peft
    from peft import TaskType, prepare_model_for_kbit_training
    from transformers import LlamaForSequenceClassification, AutoModelForTokenClassification

    base = LlamaForSequenceClassification.from_pretrained("meta-llama/Llama-2-7b-hf", num_labels=3, load_in_4bit=True)
    base = prepare_model_for_kbit_training(base)
    model = peft.get_peft_model(base, peft.LoraConfig(r=16, task_type=TaskType.CAUSAL_LM))  # expect: peft-classifier-head-frozen

    tagger = AutoModelForTokenClassification.from_pretrained("bert-base-cased", id2label=id2label, label2id=label2id)
    tagger = peft.get_peft_model(tagger.to("cuda"), peft.LoraConfig(r=8, task_type="SEQ_CLS"))  # expect: peft-classifier-head-frozen
    """
    check(src, RULE)


def test_helper_parameter_and_options_dict():
    src = """
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification

    def wrap(model, rank):
        options = {"lora_alpha": 32, "target_modules": ["q_lin", "v_lin"]}
        options["r"] = rank
        config = LoraConfig(**options)
        return get_peft_model(model, config)  # expect: peft-classifier-head-frozen

    def build(name, n):
        clf = AutoModelForSequenceClassification.from_pretrained(name, num_labels=n)
        return wrap(clf, 4)
    """
    check(src, RULE)


def test_task_type_modules_to_save_or_manual_unfreeze_are_fine():
    with_task = """
    from peft import LoraConfig, TaskType, get_peft_model
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=2)
    model = get_peft_model(model, LoraConfig(task_type=TaskType.SEQ_CLS, r=8))
    other = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=2)
    other = get_peft_model(other, LoraConfig(task_type="seq_cls", r=8))
    """
    with_saved = """
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained("mistralai/Mistral-7B-v0.1", num_labels=2)
    model = get_peft_model(model, LoraConfig(r=8, modules_to_save=["score"]))
    """
    by_hand = """
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=4)
    model = get_peft_model(model, LoraConfig(r=8))
    for p in model.base_model.model.classifier.parameters():
        p.requires_grad = True
    """
    unknown_options = """
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification

    def wrap(model, options):
        return get_peft_model(model, LoraConfig(**options))

    clf = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=4)
    wrap(clf, cfg.lora)
    """
    for src in (with_task, with_saved, by_hand, unknown_options):
        check(src, RULE)


def test_causal_lm_and_pretrained_heads_are_fine():
    causal = """
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained("gpt2")
    model = get_peft_model(model, LoraConfig(r=8, target_modules=["c_attn"]))
    """
    trained_head = """
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification

    # a checkpoint that already has its trained sentiment head: nothing new to train there
    model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased-finetuned-sst-2-english")
    model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_lin", "v_lin"]))
    """
    mixed_callers = """
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification, AutoModelForCausalLM

    def wrap(model):
        return get_peft_model(model, LoraConfig(r=8))

    wrap(AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=4))
    wrap(AutoModelForCausalLM.from_pretrained("gpt2"))
    """
    for src in (causal, trained_head, mixed_callers):
        check(src, RULE)
