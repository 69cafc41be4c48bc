from .np_trainer import NodePredictionTrainer
