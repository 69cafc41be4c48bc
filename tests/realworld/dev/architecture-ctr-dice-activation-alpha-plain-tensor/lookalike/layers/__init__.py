from .activation import Dice, activation_layer
from .core import DNN, PredictionLayer
