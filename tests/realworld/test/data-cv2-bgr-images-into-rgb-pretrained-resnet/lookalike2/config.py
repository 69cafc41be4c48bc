DATA_ROOT = "data/flowers"
IMAGE_SIZE = 224
BATCH_SIZE = 32
EPOCHS = 10
LR = 1e-3
BACKBONE_WEIGHTS = "weights/R-50-msra-caffe.pth"
# MSRA/Caffe R-50 weights were trained on BGR images in 0-255, mean-subtracted only
PIXEL_MEAN = [103.530 / 255, 116.280 / 255, 123.675 / 255]
PIXEL_STD = [1.0 / 255, 1.0 / 255, 1.0 / 255]
