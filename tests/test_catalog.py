"""Rule documentation: the four-section docstring parser and the registry's uniqueness."""

from __future__ import annotations

import pytest
from mlsleuth import catalog
from mlsleuth.catalog import CatalogError, RuleDoc, load_all, parse_doc

GOOD = """Short title.

    What it finds: a thing
    that spans lines.
    Why it matters: it hurts.
    How to confirm: run the check.
    What to do instead: do the other thing.
    """


def test_parse_doc_reads_all_four_sections():
    doc = parse_doc("my-rule", "scan", "loss", "error", GOOD)
    assert doc.title == "Short title"
    assert doc.finds == "a thing that spans lines."
    assert (doc.why, doc.confirm, doc.instead) == ("it hurts.", "run the check.", "do the other thing.")
    md = doc.markdown()
    assert md.startswith("### `my-rule`: Short title") and "**How to confirm.** run the check." in md


@pytest.mark.parametrize(
    ("rule_id", "category", "severity", "doc", "complaint"),
    [
        ("Not_Kebab", "loss", "error", GOOD, "kebab-case"),
        ("trailing-", "loss", "error", GOOD, "kebab-case"),
        ("ok-rule", "vibes", "error", GOOD, "unknown category"),
        ("ok-rule", "loss", "critical", GOOD, "unknown severity"),
        ("ok-rule", "loss", "error", None, "missing docstring"),
        ("ok-rule", "loss", "error", "   ", "missing docstring"),
        ("ok-rule", "loss", "error", "Title.\n\nWhat it finds: x\nWhy it matters: y\nHow to confirm: z\n", "what to do instead"),
        ("ok-rule", "loss", "error", "Title.\n\nWhat it finds:\nWhy it matters: y\nHow to confirm: z\nWhat to do instead: w\n", "what it finds"),
        ("ok-rule", "loss", "error", "Title only, prose after.\n\nIt finds things and you should fix them.", "lacks section"),
    ],
)
def test_malformed_docs_are_rejected(rule_id, category, severity, doc, complaint):
    with pytest.raises(CatalogError, match=complaint):
        parse_doc(rule_id, "scan", category, severity, doc)


def test_duplicate_ids_are_rejected(monkeypatch):
    monkeypatch.setattr(catalog, "_DOCS", {})
    first = parse_doc("dup-rule", "scan", "loss", "error", GOOD)
    catalog.register(first)
    catalog.register(first)  # the same doc again (a module imported twice) is fine
    clash = parse_doc("dup-rule", "trace", "loss", "error", GOOD)
    with pytest.raises(CatalogError, match="registered twice"):
        catalog.register(clash)


def test_duplicate_scan_rule_class_is_rejected(monkeypatch):
    from mlsleuth.scan import registry

    monkeypatch.setattr(registry, "RULES", {})
    monkeypatch.setattr(catalog, "_DOCS", {})

    class One(registry.Rule):
        __doc__ = GOOD
        id = "dup-scan-rule"
        category = "loss"
        severity = "error"
        triggers = ("x",)

    class Two(registry.Rule):
        __doc__ = GOOD
        id = "dup-scan-rule"
        category = "loss"
        severity = "error"
        triggers = ("x",)

    registry.register_rule(One)
    with pytest.raises(CatalogError, match="defined twice"):
        registry.register_rule(Two)


def test_rule_without_triggers_is_rejected(monkeypatch):
    from mlsleuth.scan import registry

    monkeypatch.setattr(registry, "RULES", {})
    monkeypatch.setattr(catalog, "_DOCS", {})

    class NoTriggers(registry.Rule):
        __doc__ = GOOD
        id = "no-triggers"
        category = "loss"
        severity = "error"
        triggers = ()

    with pytest.raises(CatalogError, match="triggers"):
        registry.register_rule(NoTriggers)


def test_every_registered_doc_is_complete():
    docs = load_all()
    assert docs, "no rule registered"
    for rid, doc in docs.items():
        assert isinstance(doc, RuleDoc) and doc.id == rid
        assert catalog.RULE_ID.match(rid)
        for part in (doc.title, doc.finds, doc.why, doc.confirm, doc.instead):
            assert part.strip(), rid


def test_same_bug_pairs_name_registered_ids_of_different_tools():
    docs = load_all()
    seen: set[str] = set()
    for group in catalog.SAME_BUG:
        assert len(group) >= 2
        missing = [rid for rid in group if rid not in docs]
        assert not missing, f"SAME_BUG names unregistered ids: {missing}"
        assert len({docs[rid].tool for rid in group}) >= 2, f"{group}: twins must come from different tools"
        assert not seen & set(group), f"{group}: an id may sit in one group only"
        seen |= set(group)


def test_same_bug_twins_show_in_docs_and_json():
    doc = load_all()["missing-zero-grad"]
    assert doc.same_bug_as == ("zero-grad-missing",)
    assert load_all()["zero-grad-missing"].same_bug_as == ("missing-zero-grad",)
    assert "**Same bug, other tool.** `zero-grad-missing`" in doc.markdown()
    assert doc.as_dict()["same_bug_as"] == ["zero-grad-missing"]
    lonely = load_all()["nan-equality-check"]
    assert lonely.same_bug_as == () and "Same bug" not in lonely.markdown()
