import torch
from PIL import Image
from torchvision import transforms
from ram.models import ram_plus
from ram import inference_ram


def get_transform(image_size=384):
    return transforms.Compose([
        transforms.Resize((image_size, image_size)),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.48145466, 0.4578275, 0.40821073], std=[0.26862954, 0.26130258, 0.27577711]),
    ])


@torch.no_grad()
def tag_images(paths, checkpoint, device="cuda"):
    transform = get_transform()
    model = ram_plus(pretrained=checkpoint, image_size=384, vit="swin_l").eval().to(device)
    results = {}
    for p in paths:
        image = transform(Image.open(p).convert("RGB")).unsqueeze(0).to(device)
        results[p] = inference_ram(image, model)[0]
    return results
