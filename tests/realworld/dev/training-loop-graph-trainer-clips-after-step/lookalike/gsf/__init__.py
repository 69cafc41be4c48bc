from .trainer import NodePredictionTrainer
