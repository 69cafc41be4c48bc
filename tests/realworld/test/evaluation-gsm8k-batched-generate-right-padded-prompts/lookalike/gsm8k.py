import json
import re

PROMPT = (
    "Below is a grade-school math problem. Think step by step, then give the "
    "final answer after '####'.\n\nQuestion: {question}\nAnswer:"
)

_ANSWER_RE = re.compile(r"####\s*(-?[\d,\.]+)")


def load_examples(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def build_prompt(example):
    return PROMPT.format(question=example["question"].strip())


def extract_answer(text):
    match = _ANSWER_RE.search(text)
    if match is None:
        return None
    return match.group(1).replace(",", "").rstrip(".")


def is_correct(prediction, example):
    return extract_answer(prediction) == extract_answer(example["answer"])
