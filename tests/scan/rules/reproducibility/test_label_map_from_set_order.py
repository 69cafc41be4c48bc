"""The ``label-map-from-set-order`` rule (``mlsleuth/scan/rules/reproducibility/label_map_from_set_order.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"label-map-from-set-order"}


def test_map_rebuilt_by_the_prediction_script(tmp_path):
    files = {
        "data.py": """
            def build_maps(docs):
                tags = set(t for doc in docs for t in doc)  # expect: label-map-from-set-order
                tag2id = {t: i for i, t in enumerate(tags)}
                return tag2id, {i: t for t, i in tag2id.items()}

            def class_index(frame):
                classes = list(set(frame["label"]))  # expect: label-map-from-set-order
                return dict(zip(classes, range(len(classes))))
            """,
        "train.py": """
            import torch
            from data import build_maps, class_index

            def main(docs, frame, model):
                tag2id, _ = build_maps(docs)
                idx = class_index(frame)
                torch.save(model.state_dict(), "model.pt")
            """,
        "predict.py": """
            import torch
            from data import build_maps, class_index

            def main(docs, frame, model):
                model.load_state_dict(torch.load("model.pt"))
                _, id2tag = build_maps(docs)
                idx = class_index(frame)
                return id2tag, idx
            """,
    }
    check_project(tmp_path, files, RULE)


def test_script_that_rebuilds_the_map_after_loading():
    src = """
    import torch

    labels = [row[1] for row in open("test.tsv")]
    name_of = dict(enumerate({*labels}))  # expect: label-map-from-set-order
    model = torch.load("classifier.pt")
    """
    check(src, RULE)


def test_sorted_saved_or_training_only_maps_are_fine(tmp_path):
    files = {
        "data.py": """
            def sorted_maps(docs):
                tags = sorted(set(t for doc in docs for t in doc))
                return {t: i for i, t in enumerate(tags)}

            def set_maps(docs):
                tags = set(t for doc in docs for t in doc)
                return {t: i for i, t in enumerate(tags)}
            """,
        "train.py": """
            from transformers import AutoConfig, AutoModelForTokenClassification
            from data import set_maps, sorted_maps

            def main(docs):
                tag2id = set_maps(docs)
                config = AutoConfig.from_pretrained("bert-base-cased", id2label={i: t for t, i in tag2id.items()}, label2id=tag2id)
                model = AutoModelForTokenClassification.from_pretrained("bert-base-cased", config=config)
                model.save_pretrained("out")
            """,
        "predict.py": """
            from transformers import AutoModelForTokenClassification
            from data import sorted_maps

            def main(docs):
                model = AutoModelForTokenClassification.from_pretrained("out")
                id2tag = model.config.id2label
                also = sorted_maps(docs)
                return id2tag, also
            """,
        "stats.py": """
            def counts(words):
                seen = {w: i for i, w in enumerate(set(words))}
                return len(seen)
            """,
    }
    check_project(tmp_path, files, RULE)
