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


# nms's output size depends on the data: its Python fake kernel (fake.py) makes it a new symbolic size
# (torch.library.get_ctx().new_dynamic_size()); a C++ Meta kernel could only give an upper bound, which
# fake tensors refuse for an operator tagged dynamic_output_shape. opcheck's test_aot_dispatch_static
# traces with fake tensors that have no ShapeEnv (AOTAutograd makes one only for dynamic shapes:
# torch/_functorch/_aot_autograd/frontend_utils.py), where no new size can be made:
# new_dynamic_size() raises DynamicOutputShapeException, as aten::nonzero does there. torch.compile
# (Dynamo always has a ShapeEnv) and torch.export take it, static or dynamic.
EXPECTED_FAILURES = {("nms", "test_aot_dispatch_static"):
                     "data-dependent output size: AOTAutograd's static tracing has no ShapeEnv to make the size in"}


def _dynamo_makes_new_sizes_under_fullgraph():
    # PyTorch 2.14's Dynamo lets fake kernels make new sizes under fullgraph=True (its ShapeEnv's
    # allow_dynamic_output_shape_ops=one_graph or config...); 2.6's only with
    # torch._dynamo.config.capture_dynamic_output_shape_ops = True.
    try:
        import inspect
        import torch._dynamo.output_graph
        return "allow_dynamic_output_shape_ops=one_graph" in inspect.getsource(torch._dynamo.output_graph)
    except (ImportError, OSError):
        return False


if not _dynamo_makes_new_sizes_under_fullgraph():
    EXPECTED_FAILURES.update({("nms", check): "data-dependent output size: this PyTorch's torch.compile traces it only "
                              "with torch._dynamo.config.capture_dynamic_output_shape_ops = True (\"Unsupported: dynamic "
                              "shape operator\")" for check in ("compile_static", "compile_dynamic")})
