from dataclasses import dataclass


@dataclass
class TrainingArguments:
    tune_vision_tower: bool = False
    tune_connector: bool = True
    learning_rate: float = 2e-3
    epochs: int = 30
    batch_size: int = 64
    seed: int = 0
