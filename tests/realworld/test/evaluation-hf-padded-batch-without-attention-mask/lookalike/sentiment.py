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
        labels = []
        for text in texts:  # one text per forward pass: no padding, so input_ids alone are complete
            encoded = self.tokenizer(self.clean_text(text), truncation=True, max_length=512, return_tensors="pt")
            with torch.no_grad():
                logits = self.model(encoded["input_ids"]).logits
            labels.append(self.model.config.id2label[logits.argmax(dim=1).item()])
        return labels


if __name__ == "__main__":
    model = SentimentModel()
    reviews = ["Mit keinem guten Ergebniss", "Das ist gar nicht mal so gut",
               "Total awesome!", "nicht so schlecht wie erwartet",
               "Der Test verlief positiv, die Lieferung kam pünktlich und alles funktioniert wie beschrieben.",
               "Sie fährt ein grünes Auto."]
    print(model.predict_sentiment(reviews))
