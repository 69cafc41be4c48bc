"""The quote registry (docs/evidence/quotes.json) and the quotations in the skill agree.

Every Markdown blockquote in the skill is a verbatim practitioner quotation: its
text must be a registry entry, its attribution line must name that entry's
author and link its URL, and it must sit in a file the entry lists under
``used_in``. Conversely every entry must be used everywhere it says.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "docs" / "evidence" / "quotes.json"
FIELDS = {"id", "author", "work", "url", "year", "text", "used_in"}


def skill_files() -> list[Path]:
    files = [ROOT / "SKILL.md"]
    for folder in ("refs", "rl", "pinn"):
        files += sorted((ROOT / folder).glob("*.md"))
    return files


def load_registry() -> list[dict]:
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    return data["quotes"]


def blockquotes(text: str) -> list[tuple[int, str, str]]:
    """(line, quoted text, attribution) for each blockquote outside code fences."""
    out, block, start, in_fence = [], [], 0, False
    lines = text.splitlines() + [""]
    for n, line in enumerate(lines, 1):
        if line.strip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if not in_fence and line.lstrip().startswith(">"):
            if not block:
                start = n
            block.append(line.lstrip()[1:].strip())
            continue
        if block:
            attribution = [b for b in block if b.startswith("—")]
            body = " ".join(b for b in block if b and not b.startswith("—"))
            out.append((start, body, attribution[-1] if attribution else ""))
            block = []
    return out


def all_quotes():
    for path in skill_files():
        for line, body, attribution in blockquotes(path.read_text(encoding="utf-8")):
            yield path, line, body, attribution


def test_registry_entries_are_complete():
    entries = load_registry()
    assert entries, "the registry is empty"
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids)), "duplicate ids"
    texts = [e["text"] for e in entries]
    assert len(texts) == len(set(texts)), "the same quotation is registered twice"
    for e in entries:
        assert set(e) == FIELDS, f"{e.get('id')}: fields {sorted(set(e) ^ FIELDS)} wrong"
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", e["id"])
        assert e["url"].startswith(("http://", "https://")), e["id"]
        assert isinstance(e["year"], int) and 1950 <= e["year"] <= 2030, e["id"]
        assert e["author"].strip() and e["work"].strip() and e["text"].strip()
        assert e["text"] == e["text"].strip() and "\n" not in e["text"]
        assert len(e["text"].split()) <= 60, f"{e['id']}: quotations must stay short"
        assert e["used_in"], f"{e['id']}: not used anywhere"
        for rel in e["used_in"]:
            assert (ROOT / rel).is_file(), f"{e['id']}: used_in names a missing file {rel}"


def test_every_blockquote_is_registered_and_attributed():
    by_text = {e["text"]: e for e in load_registry()}
    problems = []
    for path, line, body, attribution in all_quotes():
        rel = str(path.relative_to(ROOT))
        entry = by_text.get(body)
        if entry is None:
            problems.append(f"{rel}:{line}: blockquote not in the registry (verbatim text): {body[:70]!r}")
            continue
        if rel not in entry["used_in"]:
            problems.append(f"{rel}:{line}: quote {entry['id']} is used here but used_in does not list {rel}")
        if entry["author"] not in attribution or f"({entry['url']})" not in attribution:
            problems.append(f"{rel}:{line}: attribution must name {entry['author']!r} and link {entry['url']}")
    assert not problems, "\n".join(problems)


def test_every_registry_entry_is_used_where_it_says():
    quoted = {(str(p.relative_to(ROOT)), body) for p, _, body, _ in all_quotes()}
    missing = [
        f"{e['id']} is not quoted in {rel}"
        for e in load_registry() for rel in e["used_in"] if (rel, e["text"]) not in quoted
    ]
    assert not missing, "\n".join(missing)


def test_the_skill_quotes_practitioners_at_all():
    assert len(list(all_quotes())) >= 8


@pytest.mark.parametrize("text, expected", [
    ("> One line.\n>\n> — A, [W](https://x)\n", [(1, "One line.", "— A, [W](https://x)")]),
    ("> Two\n> lines.\n\ntext\n", [(1, "Two lines.", "")]),
    ("```md\n> not a quote\n```\n", []),
])
def test_blockquote_parser(text, expected):
    assert blockquotes(text) == expected
