from dataclasses import dataclass, field


@dataclass
class DataConfig:
    train_csv: str = "data/annotations_train.csv"
    val_csv: str = "data/annotations_val.csv"
    audio_dir: str = "data/clips"
    sample_rate: int = 16000
    seq_length: float = 1.0
    n_fft: int = 512
    hop_length: int = 160
    n_mels: int = 64
    label_names: list = field(default_factory=lambda: ["noise", "call"])


@dataclass
class TrainConfig:
    batch_size: int = 64
    epochs: int = 30
    lr: float = 3e-4
    weight_decay: float = 1e-4
    num_workers: int = 4
    balance_classes: bool = True
    device: str = "cuda"
    data: DataConfig = field(default_factory=DataConfig)
