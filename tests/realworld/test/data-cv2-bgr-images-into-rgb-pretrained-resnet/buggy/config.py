DATA_ROOT = "data/flowers"
IMAGE_SIZE = 224
BATCH_SIZE = 32
EPOCHS = 10
LR = 1e-3
# torchvision ImageNet weights were trained on RGB images with these per-channel statistics
PIXEL_MEAN = [0.485, 0.456, 0.406]
PIXEL_STD = [0.229, 0.224, 0.225]
