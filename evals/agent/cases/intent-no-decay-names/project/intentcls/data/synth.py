"""Generated support-chat utterances for twelve intents.

Every intent has a few templates with slots; slot fillers and filler words are shared between
intents, so a bag of words is not enough for the confusable pairs (refund vs. cancel_order,
track_order vs. delivery_delay). A fraction of the utterances get a typo or a dropped word.
"""
import random

INTENTS = {
    "refund": ["i want my money back for the {item}", "please refund the {item} i returned", "refund for order {num}"],
    "cancel_order": ["cancel my order for the {item}", "i no longer want the {item} please cancel", "stop order {num}"],
    "track_order": ["where is my {item}", "track order {num}", "has the {item} shipped yet"],
    "delivery_delay": ["my {item} is late", "order {num} should have arrived {day}", "why is the {item} not here yet"],
    "change_address": ["ship the {item} to my new address", "update delivery address for order {num}", "i moved please change my address"],
    "payment_failed": ["my card was declined for the {item}", "payment for order {num} failed", "why did my payment fail {day}"],
    "account_locked": ["i cannot log in since {day}", "my account is locked", "password reset does not work"],
    "product_info": ["is the {item} waterproof", "what size is the {item}", "does the {item} come in blue"],
    "warranty": ["the {item} broke after a month", "is the {item} still under warranty", "repair my {item} please"],
    "discount": ["do you have a coupon for the {item}", "my discount code does not work", "is there a sale {day}"],
    "human_agent": ["let me talk to a person", "i want a human agent", "connect me to support {day}"],
    "feedback": ["great service with the {item}", "the app is slow {day}", "i love the new {item}"],
}
ITEMS = ["jacket", "phone case", "blender", "headphones", "backpack", "lamp", "kettle", "sneakers", "charger"]
DAYS = ["today", "yesterday", "on monday", "last week", "this morning"]
FILLERS = ["hi", "hello", "please", "thanks", "asap", "hey there", "quick question", "urgent"]


def _utterance(rng: random.Random, template: str) -> str:
    text = template.format(item=rng.choice(ITEMS), num=rng.randint(1000, 9999), day=rng.choice(DAYS))
    words = text.split()
    if rng.random() < 0.5:
        words.insert(0, rng.choice(FILLERS))
    if rng.random() < 0.3:
        words.append(rng.choice(FILLERS))
    if rng.random() < 0.15 and len(words) > 3:
        del words[rng.randrange(len(words))]
    if rng.random() < 0.15:
        i = rng.randrange(len(words))
        w = words[i]
        if len(w) > 3:
            j = rng.randrange(len(w) - 1)
            words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)


def generate(n: int, seed: int, label_noise: float = 0.04):
    rng = random.Random(seed)
    names = sorted(INTENTS)
    rows = []
    for _ in range(n):
        label = rng.randrange(len(names))
        text = _utterance(rng, rng.choice(INTENTS[names[label]]))
        if rng.random() < label_noise:
            label = rng.randrange(len(names))
        rows.append((text, label))
    return rows, names
