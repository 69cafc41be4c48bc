"""Simulated support tickets. Each queue has its own topic words; all queues share a large
pool of filler words and some cross-topic words, and ticket lengths vary. Queue sizes are very
uneven (billing and login tickets dominate, legal and security requests are rare)."""
from __future__ import annotations

import numpy as np

QUEUES = ["billing", "login", "shipping", "bug_report", "legal", "security"]
SHARE = [0.42, 0.24, 0.14, 0.12, 0.05, 0.03]

TOPIC = {
    "billing": "invoice charge refund card payment subscription price receipt plan renew",
    "login": "password login account reset locked username sso verify email code",
    "shipping": "delivery package tracking courier address shipped late parcel warehouse box",
    "bug_report": "error crash app screen button broken update freeze page loading",
    "legal": "gdpr contract terms lawyer liability compliance clause notice dispute court",
    "security": "breach phishing suspicious hacked fraud unauthorized leak malware 2fa stolen",
}
FILLER = ("hello hi please thanks regards team help need issue problem question today yesterday "
          "again still not working can you my the a an is are was it this that order customer "
          "support urgent asap week month ticket reply waiting number").split()


def ticket(queue: str, rng) -> str:
    own = TOPIC[queue].split()
    others = [w for q, ws in TOPIC.items() if q != queue for w in ws.split()]
    n = int(rng.integers(8, 30))
    words = []
    for _ in range(n):
        r = rng.random()
        if r < 0.12:
            words.append(own[int(rng.integers(len(own)))])
        elif r < 0.20:
            words.append(others[int(rng.integers(len(others)))])
        else:
            words.append(FILLER[int(rng.integers(len(FILLER)))])
    return " ".join(words)


def make_tickets(n: int, seed: int):
    rng = np.random.default_rng(seed)
    labels = rng.choice(len(QUEUES), size=n, p=SHARE)
    texts = [ticket(QUEUES[c], rng) for c in labels]
    return texts, [QUEUES[c] for c in labels]
