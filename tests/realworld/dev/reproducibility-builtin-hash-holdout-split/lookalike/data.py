import json


def load_unique(path="data/ecg_records.jsonl"):
    seen = set()
    out = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            key = hash((r["patient_id"], r["recording_id"]))
            if key in seen:
                continue
            seen.add(key)
            out.append(r)
    return out
