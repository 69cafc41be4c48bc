import json


def load_examples(path):
    """Each line: {"context": [...previous turns...], "current": str, "rewrite": str}."""
    examples = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            ex = json.loads(line)
            history = " [SEP] ".join(ex["context"][-3:])
            examples.append({"source": f"{history} [CUR] {ex['current']}", "target": ex["rewrite"]})
    return examples


def normalize(text):
    text = text.strip().lower()
    for p in [",", ".", "?", "!", ";", ":"]:
        text = text.replace(p, f" {p}")
    return " ".join(text.split())


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [normalize(line) for line in f]
