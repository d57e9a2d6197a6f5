"""The inputs opgen_add_opcheck_test checks the vision operators with (see OpGenOpcheck.py)."""
import torch


def boxes(n=3, requires_grad=False):
    b = torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0], [10.0, 10.0, 11.0, 12.0],
                      [4.0, 4.0, 6.0, 7.0], [5.0, 5.0, 6.5, 7.5]])[:n].clone()
    return b.requires_grad_(requires_grad)


def samples():
    a, b = torch.rand(2, 3), torch.rand(2, 3)
    image = torch.arange(32.0).reshape(1, 2, 4, 4)
    rois = torch.tensor([[0.0, 0.0, 0.0, 3.0, 3.0], [0.0, 1.0, 1.0, 2.0, 3.0]])
    return {
        # Every box kept, and one suppressed.
        "nms": [(boxes(3), torch.tensor([0.9, 0.8, 0.7]), 0.5), (boxes(5), torch.tensor([0.9, 0.8, 0.7, 0.6, 0.5]), 0.1)],
        "scale_add": [(a, b), ((a, b), {"alpha": 2})],
        "scale_add_": [((a.clone(), b), {"alpha": -1})],
        "scale_add.out": [((a, b), {"alpha": 2, "out": torch.empty(2, 3)})],
        "box_area": [(boxes(3, requires_grad=True),)],
        "box_iou": [(boxes(3), boxes(5)), ((boxes(3), boxes(3)), {"aligned": True})],
        "anchor_grid": [(([2, 3], 4.0), {"dtype": torch.float64})],
        "roi_pool": [(image, rois, 1.0, [2, 2]), ((image, rois, 0.5, [1, 1]), {"sampling_ratio": 2, "mode": "avg"})],
        "stack_boxes": [([boxes(3), boxes(5)],), (([boxes(3)],), {"weights": torch.tensor([1.0, 0.0, 2.0])})],
        "clip_boxes": [(boxes(5), [4, 5])],
        "box_convert": [(boxes(5), "xyxy", "xywh")],
        "scale_boxes_": [(boxes(3), 2.0)],
        "scale_boxes": [(boxes(3), 2.0)],
        "scale_boxes.out": [((boxes(3), 2.0), {"out": torch.empty(3, 4)})],
        "box_size": [(boxes(5),)],
        "box_size.out": [((boxes(5),), {"out0": torch.empty(5), "out1": torch.empty(5)})],
    }


# nms's output size depends on the data: it is tagged dynamic_output_shape, and its C++ Meta kernel can
# only give an upper bound. PyTorch's fake tensors then refuse to trace it (DynamicOutputShapeException):
# a data-dependent size needs a fake kernel that makes an unbacked size
# (torch.library.get_ctx().new_dynamic_size()), which only a Python fake kernel can.
_NMS = "data-dependent output size (dynamic_output_shape): fake tensors cannot trace it without a Python fake kernel"
EXPECTED_FAILURES = {("nms", check): _NMS for check in ("test_aot_dispatch_static", "test_aot_dispatch_dynamic",
                                                        "compile_static", "compile_dynamic", "export")}
