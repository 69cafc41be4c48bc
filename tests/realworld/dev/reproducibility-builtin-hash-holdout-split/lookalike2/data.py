import hashlib


def in_holdout(patient_id, holdout_pct=20):
    digest = hashlib.md5(patient_id.encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % 100 < holdout_pct
