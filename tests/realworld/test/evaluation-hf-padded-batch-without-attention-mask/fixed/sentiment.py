import re
from typing import List

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


class SentimentModel:
    def __init__(self, model_name: str = "oliverguhr/german-sentiment-bert"):
        self.model = AutoModelForSequenceClassification.from_pretrained(model_name)
        self.tokenizer = AutoTokenizer.from_pretrained(model_name)
        self.clean_chars = re.compile(r"[^A-Za-züöäÖÜÄß ]", re.MULTILINE)
        self.clean_urls = re.compile(r"https*\S+", re.MULTILINE)

    def clean_text(self, text: str) -> str:
        text = self.clean_urls.sub(" ", text)
        text = self.clean_chars.sub(" ", text)
        return re.sub(" +", " ", text).strip().lower()

    def predict_sentiment(self, texts: List[str]) -> List[str]:
        texts = [self.clean_text(t) for t in texts]
        encoded = self.tokenizer(texts, padding=True, truncation=True, max_length=512, return_tensors="pt")
        with torch.no_grad():
            logits = self.model(**encoded).logits
        label_ids = torch.argmax(logits, dim=1)
        return [self.model.config.id2label[i.item()] for i in label_ids]


if __name__ == "__main__":
    model = SentimentModel()
    reviews = ["Mit keinem guten Ergebniss", "Das ist gar nicht mal so gut",
               "Total awesome!", "nicht so schlecht wie erwartet",
               "Der Test verlief positiv, die Lieferung kam pünktlich und alles funktioniert wie beschrieben.",
               "Sie fährt ein grünes Auto."]
    print(model.predict_sentiment(reviews))
