"""The ``opencv-bgr-into-rgb-model`` rule (``mlsleuth/scan/rules/data/opencv_bgr_into_rgb_model.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"opencv-bgr-into-rgb-model"}


def test_dataset_reads_with_cv2_and_normalises_with_imagenet_stats():
    src = """
        import cv2
        import torch
        import torchvision
        from torchvision import transforms as T

        MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)

        class Leaves(torch.utils.data.Dataset):
            def __init__(self, paths, labels):
                self.paths, self.labels = paths, labels
                self.tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])

            def __len__(self):
                return len(self.paths)

            def __getitem__(self, i):
                image = cv2.resize(cv2.imread(self.paths[i]), (224, 224))  # expect: opencv-bgr-into-rgb-model
                return self.tf(image), self.labels[i]

        model = torchvision.models.resnet50(weights=torchvision.models.ResNet50_Weights.DEFAULT)
        """
    check(src, RULE)


def test_inference_script_with_timm_and_hf_processor():
    src = """
        import cv2
        import timm
        import torch
        from transformers import AutoImageProcessor, AutoModelForImageClassification

        net = timm.create_model("efficientnet_b0", pretrained=True, num_classes=5)

        def predict(path):
            frame = cv2.imread(path).astype("float32") / 255.0  # expect: opencv-bgr-into-rgb-model
            x = torch.from_numpy(frame).permute(2, 0, 1)[None]
            return net(x).argmax(1)

        processor = AutoImageProcessor.from_pretrained("google/vit-base-patch16-224")
        vit = AutoModelForImageClassification.from_pretrained("google/vit-base-patch16-224")

        def classify(path):
            img = cv2.imread(path, cv2.IMREAD_COLOR)  # expect: opencv-bgr-into-rgb-model
            inputs = processor(images=img, return_tensors="pt")
            return vit(**inputs).logits
        """
    check(src, RULE)


def test_dataset_in_its_own_module_of_a_pretrained_project(tmp_path):
    check_project(tmp_path, {
        "data.py": """
            import cv2
            from torch.utils.data import Dataset

            class Frames(Dataset):
                def __init__(self, files, aug=None):
                    self.files, self.aug = files, aug

                def __getitem__(self, idx):
                    img = cv2.imread(self.files[idx])  # expect: opencv-bgr-into-rgb-model
                    if self.aug is not None:
                        img = self.aug(image=img)["image"]
                    return img
            """,
        "train.py": """
            import torchvision
            from data import Frames

            backbone = torchvision.models.resnet18(pretrained=True)
            ds = Frames(["a.jpg"])
            """,
    }, RULE)


def test_converted_grayscale_bgr_aware_or_scratch_code_stays_silent():
    converted = """
        import cv2
        import torch
        import torchvision

        model = torchvision.models.resnet18(weights="DEFAULT")

        def load(path):
            img = cv2.imread(path)
            img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
            return torch.from_numpy(img)
        """
    flipped = """
        import cv2
        import torch
        model = torch.hub.load("pytorch/vision", "resnet18", pretrained=True)

        def load(path):
            img = cv2.imread(path)[:, :, ::-1].copy()
            return model(torch.from_numpy(img))
        """
    gray = """
        import cv2
        import torch
        import torchvision
        model = torchvision.models.resnet18(pretrained=True)

        def load(path):
            mask = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
            depth = cv2.imread(path, -1)
            return torch.from_numpy(mask), torch.from_numpy(depth)
        """
    bgr_model = """
        import cv2
        import torch
        from detectron2.config import get_cfg
        cfg = get_cfg()
        cfg.INPUT.FORMAT = "BGR"
        backbone_weights = dict(pretrained=True)

        def run(predictor, path):
            im = cv2.imread(path)
            return predictor(im)
        """
    scratch = """
        import cv2
        import torch

        class Cells(torch.utils.data.Dataset):
            def __getitem__(self, i):
                img = cv2.imread(self.paths[i])
                return torch.from_numpy(img).permute(2, 0, 1).float() / 255

        model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU())
        """
    loader_only = """
        import cv2
        import torchvision
        model = torchvision.models.resnet18(pretrained=True)

        def read(path):
            img = cv2.imread(path)
            cv2.imwrite("copy.jpg", img)
            return img
        """
    for src in (converted, flipped, gray, bgr_model, scratch, loader_only):
        check(src, RULE)
