"""The ``pretrained-normalization-mismatch`` rule (``mlsleuth/scan/rules/data/pretrained_normalization_mismatch.py``)."""

from __future__ import annotations

from scan.helpers import check, project_reported, write_project

RULE = {"pretrained-normalization-mismatch"}


def test_vit_with_imagenet_statistics_through_constants_and_parameter_default():
    src = """
        import timm
        import torchvision.transforms as T

        MEAN = (0.485, 0.456, 0.406)
        STD = (0.229, 0.224, 0.225)

        def build(name="vit_base_patch16_224.augreg_in21k_ft_in1k"):
            return timm.create_model(name, pretrained=True, num_classes=10)

        def tf(mean=MEAN, std=STD):
            return T.Compose([T.ToTensor(), T.Normalize(mean, std)])  # expect: pretrained-normalization-mismatch
        """
    check(src, RULE)


def test_torchvision_weights_with_half_statistics_and_clip_with_imagenet():
    src = """
        from torchvision import models, transforms
        from torchvision.models import inception_v3, Inception_V3_Weights

        def is_net():
            return inception_v3(weights=Inception_V3_Weights.IMAGENET1K_V1).eval()

        tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,) * 3, [0.5] * 3)])  # expect: pretrained-normalization-mismatch
        """
    check(src, RULE)
    src = """
        import clip
        import torchvision.transforms as T
        model, _ = clip.load("ViT-B/32")
        pre = T.Compose([T.Resize(224), T.ToTensor(), T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])  # expect: pretrained-normalization-mismatch
        """
    check(src, RULE)
    src = """
        import albumentations as A
        from transformers import ViTForImageClassification
        model = ViTForImageClassification.from_pretrained("google/vit-base-patch16-224")
        aug = A.Compose([A.Resize(224, 224), A.Normalize()])  # expect: pretrained-normalization-mismatch
        """
    check(src, RULE)


def test_statistics_imported_from_a_constants_module(tmp_path):
    write_project(tmp_path, {
        "consts.py": """
            IMAGENET_MEAN = [0.485, 0.456, 0.406]
            IMAGENET_STD = [0.229, 0.224, 0.225]
            """,
        "train.py": """
            import timm
            from torchvision import transforms as T
            from consts import IMAGENET_MEAN, IMAGENET_STD
            model = timm.create_model("vit_small_patch16_224", pretrained=True)
            tf = T.Normalize(IMAGENET_MEAN, IMAGENET_STD)
            """,
    })
    assert {(r, line) for r, _p, line in project_reported(tmp_path, RULE)} == {("pretrained-normalization-mismatch", 5)}


def test_matching_or_unknowable_statistics_stay_silent():
    src = """
        import timm
        import torchvision.transforms as T
        from torchvision.models import inception_v3, resnet50, ResNet50_Weights
        from timm.data import IMAGENET_INCEPTION_MEAN, IMAGENET_INCEPTION_STD

        def torchvision_resnet():
            net = resnet50(weights=ResNet50_Weights.DEFAULT)
            return net, T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))

        def tf_inception():
            net = inception_v3(weights="DEFAULT", transform_input=False)
            return net, T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))

        def from_scratch():
            net = timm.create_model("vit_base_patch16_224", pretrained=False)
            return net, T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))

        def vit_named_constants():
            return T.Normalize(IMAGENET_INCEPTION_MEAN, IMAGENET_INCEPTION_STD)

        def dataset_statistics():
            return T.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))
        """
    check(src, RULE)


def test_statistics_read_from_the_weights_or_several_families_stay_silent():
    src = """
        import timm
        import torchvision.transforms as T

        def build(name="vit_base_patch16_224.augreg_in21k", mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
            model = timm.create_model(name, pretrained=True)
            cfg = model.pretrained_cfg
            return model, T.Normalize(cfg["mean"], cfg["std"]), T.Normalize(mean, std)
        """
    check(src, RULE)
    src = """
        import timm
        import torchvision.transforms as T
        teacher = timm.create_model("vit_base_patch16_224", pretrained=True)
        student = timm.create_model("resnet50", pretrained=True)
        tf = T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
        """
    check(src, RULE)
    src = """
        import timm
        import torchvision.transforms as T

        def make(name):
            return timm.create_model(name, pretrained=True)

        tf = T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))
        """
    check(src, RULE)


def test_model_built_in_another_module_of_the_folder(tmp_path):
    write_project(tmp_path, {
        "proj/model.py": """
            import timm

            def build(num_classes):
                return timm.create_model("vit_base_patch16_224.augreg_in21k", pretrained=True, num_classes=num_classes)
            """,
        "proj/data.py": """
            from torchvision import transforms as T

            def train_tf():
                return T.Compose([T.RandomResizedCrop(224), T.ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
            """,
        "other/resnet.py": """
            from torchvision.models import resnet50
            net = resnet50(pretrained=True)
            """,
    })
    assert {(r, p, line) for r, p, line in project_reported(tmp_path, RULE)} == {
        ("pretrained-normalization-mismatch", "proj/data.py", 4)
    }


def test_model_in_another_module_that_reads_its_statistics_stays_silent(tmp_path):
    write_project(tmp_path, {
        "model.py": """
            import timm

            def build():
                model = timm.create_model("vit_base_patch16_224", pretrained=True)
                cfg = timm.data.resolve_data_config({}, model=model)
                return model, cfg
            """,
        "data.py": """
            from torchvision import transforms as T
            TF = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
            """,
    })
    assert project_reported(tmp_path, RULE) == set()


def test_model_name_from_a_command_line_default():
    src = """
        import argparse

        import timm
        from torchvision import transforms as T

        parser = argparse.ArgumentParser()
        parser.add_argument("--model-name", default="vit_small_patch16_224.augreg_in21k")
        parser.add_argument("--lr", type=float, default=1e-3)
        args = parser.parse_args()
        model = timm.create_model(args.model_name, pretrained=True)
        tf = T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))  # expect: pretrained-normalization-mismatch
        """
    check(src, RULE)
    src = """
        import argparse

        import timm
        from torchvision import transforms as T

        parser = argparse.ArgumentParser()
        parser.add_argument("--model-name", default="resnet50")
        args = parser.parse_args()
        model = timm.create_model(args.model_name, pretrained=True)
        tf = T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
        """
    check(src, RULE)


def test_gan_data_with_a_perceptual_loss_that_renormalises_stays_silent():
    src = """
        import torch
        from torchvision import models, transforms as T

        class VGGLoss(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.vgg = models.vgg16(weights=models.VGG16_Weights.DEFAULT).features[:16].eval()
                self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
                self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

            def forward(self, fake, real):
                fake, real = ((fake + 1) / 2 - self.mean) / self.std, ((real + 1) / 2 - self.mean) / self.std
                return torch.nn.functional.l1_loss(self.vgg(fake), self.vgg(real))

        gan_tf = T.Compose([T.ToTensor(), T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
        """
    check(src, RULE)


def test_diffusion_script_with_clip_text_tower_and_half_statistics_stays_silent():
    # a latent-diffusion fine-tuning script: the images go to the VAE in [-1, 1]; the CLIP pieces it loads are the
    # tokenizer and the text encoder, which never see a pixel
    src = """
        from torchvision import transforms
        from transformers import CLIPTextModel, CLIPTokenizer

        def load(args):
            tok = CLIPTokenizer.from_pretrained(args.base, subfolder="tokenizer")
            enc = CLIPTextModel.from_pretrained(args.base, subfolder="text_encoder")
            return tok, enc

        train_tf = transforms.Compose([
            transforms.Resize(512),
            transforms.ToTensor(),
            transforms.Normalize([0.5], [0.5]),
        ])
        """
    check(src, RULE)
    # the image tower of the same family still asks for its own statistics
    src = """
        from torchvision import transforms
        from transformers import CLIPVisionModel

        vision = CLIPVisionModel.from_pretrained("openai/clip-vit-base-patch32")
        tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5] * 3, [0.5] * 3)])  # expect: pretrained-normalization-mismatch
        """
    check(src, RULE)
