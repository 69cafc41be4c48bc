import argparse
import torch
from PIL import Image
from torchvision import transforms
from model import ShuffleNet


def get_transformer():
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    return transforms.Compose([transforms.Resize(224), transforms.CenterCrop(224), transforms.ToTensor(), normalize])


def preprocess(image, transformer):
    return transformer(image).unsqueeze(0)


def infer(args):
    net = ShuffleNet(num_classes=args.num_classes, in_channels=3)
    checkpoint = torch.load(args.checkpoint, map_location="cpu")
    net.load_state_dict(checkpoint["state_dict"])
    x = preprocess(Image.open(args.image).convert("RGB"), get_transformer())
    with torch.no_grad():
        probs = torch.softmax(net(x), dim=1)
    top5 = probs.topk(5)
    for p, idx in zip(top5.values[0], top5.indices[0]):
        print(f"class {idx.item():4d}  prob {p.item():.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--image", default="cat.jpg")
    parser.add_argument("--checkpoint", default="shufflenet.pth.tar")
    parser.add_argument("--num_classes", type=int, default=1000)
    infer(parser.parse_args())
