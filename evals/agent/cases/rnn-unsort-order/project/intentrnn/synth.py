"""Simulated support-chat utterances for five intents."""
from __future__ import annotations

import random

INTENTS = ("billing", "cancel", "delivery", "login", "refund")

_CUES = {
    "billing": ["invoice", "charged", "charge", "bill", "payment", "card", "statement", "twice"],
    "cancel": ["cancel", "unsubscribe", "stop", "terminate", "close", "subscription", "plan", "end"],
    "delivery": ["package", "parcel", "delivery", "tracking", "courier", "shipped", "arrive", "late"],
    "login": ["password", "login", "log", "account", "locked", "reset", "code", "sign"],
    "refund": ["refund", "money", "back", "return", "returned", "reimburse", "credit", "owed"],
}
_FILLER = ("i", "my", "the", "a", "it", "is", "was", "and", "but", "please", "hi", "hello", "can", "you", "help",
           "me", "with", "this", "not", "still", "why", "have", "has", "been", "for", "on", "in", "to", "of",
           "yesterday", "today", "week", "again", "thanks", "urgent", "there", "what", "do", "did", "so", "just",
           "order", "service", "app", "website", "email", "phone", "number", "days", "since", "now", "ok")


def make_utterance(rng: random.Random, intent: str, min_len: int, max_len: int) -> list[str]:
    n = rng.randint(min_len, max_len)
    words = [rng.choice(_FILLER) for _ in range(n)]
    n_cues = rng.randint(1, 2)
    for _ in range(n_cues):
        words[rng.randrange(n)] = rng.choice(_CUES[intent])
    return words


def make_corpus(n: int, min_len: int, max_len: int, seed: int):
    rng = random.Random(seed)
    labels = [rng.randrange(len(INTENTS)) for _ in range(n)]
    texts = [" ".join(make_utterance(rng, INTENTS[y], min_len, max_len)) for y in labels]
    return texts, labels
