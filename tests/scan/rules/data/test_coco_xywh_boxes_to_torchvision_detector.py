"""The ``coco-xywh-boxes-to-torchvision-detector`` rule (``mlsleuth/scan/rules/data/coco_xywh_boxes_to_torchvision_detector.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"coco-xywh-boxes-to-torchvision-detector"}


def test_coco_dataset_puts_bbox_straight_into_target():
    src = """
        import torch
        import torchvision
        from pycocotools.coco import COCO
        from PIL import Image

        class CocoDet(torch.utils.data.Dataset):
            def __init__(self, root, ann_file):
                self.coco = COCO(ann_file)
                self.ids = list(self.coco.imgs.keys())

            def __getitem__(self, index):
                img_id = self.ids[index]
                anns = self.coco.loadAnns(self.coco.getAnnIds(imgIds=img_id))
                boxes = [a["bbox"] for a in anns]
                target = {}
                target["boxes"] = torch.as_tensor(boxes, dtype=torch.float32)  # expect: coco-xywh-boxes-to-torchvision-detector
                target["labels"] = torch.tensor([a["category_id"] for a in anns])
                return Image.open(self.paths[index]).convert("RGB"), target

        model = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights="DEFAULT")
        """
    check(src, RULE)


def test_appended_boxes_in_a_dict_literal_and_a_dataset_module(tmp_path):
    check_project(tmp_path, {
        "dataset.py": """
            import json
            import torch

            class Parts(torch.utils.data.Dataset):
                def __init__(self, ann_path):
                    self.data = json.load(open(ann_path))

                def __getitem__(self, i):
                    objs = self.data["annotations"][i]
                    boxes, labels = [], []
                    for obj in objs:
                        boxes.append(obj["bbox"])
                        labels.append(obj["category_id"])
                    return self.load(i), {"boxes": torch.tensor(boxes), "labels": torch.tensor(labels)}  # expect: coco-xywh-boxes-to-torchvision-detector
            """,
        "train.py": """
            from torchvision.models.detection import retinanet_resnet50_fpn
            from dataset import Parts

            model = retinanet_resnet50_fpn(num_classes=5)
            ds = Parts("train.json")
            """,
    }, RULE)


def test_converted_boxes_or_other_detectors_stay_silent():
    converted = """
        import torch
        import torchvision

        class A(torch.utils.data.Dataset):
            def __getitem__(self, i):
                anns = self.anns[i]
                boxes = torch.as_tensor([a["bbox"] for a in anns], dtype=torch.float32)
                boxes[:, 2:] += boxes[:, :2]
                target = {"boxes": boxes}
                return self.img(i), target

        model = torchvision.models.detection.fasterrcnn_resnet50_fpn()
        """
    box_convert = """
        import torch
        from torchvision.ops import box_convert
        from torchvision.models.detection import maskrcnn_resnet50_fpn

        def make_target(anns):
            raw = torch.tensor([a["bbox"] for a in anns])
            return {"boxes": box_convert(raw, "xywh", "xyxy")}
        """
    corners = """
        import torch
        import torchvision

        def make_target(anns):
            boxes = []
            for a in anns:
                x, y, w, h = a["bbox"]
                boxes.append([x, y, x + w, y + h])
            return {"boxes": torch.tensor(boxes)}

        model = torchvision.models.detection.fasterrcnn_resnet50_fpn()
        """
    voc_boxes = """
        import torch
        import torchvision

        def make_target(objs):
            boxes = [o["bbox"] for o in objs]
            return {"boxes": torch.tensor(boxes)}
        """
    detr = """
        import torch

        def prepare(anns):
            boxes = [a["bbox"] for a in anns]
            return {"boxes": torch.tensor(boxes)}

        model = torch.hub.load("facebookresearch/detr", "detr_resnet50")
        """
    through_transforms = """
        import torch
        import torchvision

        class CocoDet(torch.utils.data.Dataset):
            def __getitem__(self, i):
                anns = self.anns[i]
                target = {"boxes": torch.tensor([a["bbox"] for a in anns]), "image_id": i}
                img, target = self._transforms(self.img(i), target)
                return img, target

        model = torchvision.models.detection.fasterrcnn_resnet50_fpn()
        """
    for src in (converted, box_convert, corners, voc_boxes, detr, through_transforms):
        check(src, RULE)
