"""Settings for the in-memory digit classifier."""

DATA_FILE = "cache/digits_28x28.npz"
BATCH_SIZE = 128
EPOCHS = 20
LR = 1e-3
WEIGHT_DECAY = 1e-4
NUM_WORKERS = 0
MEAN = 0.1307
STD = 0.3081
VAL_FRACTION = 0.1
SEED = 0
