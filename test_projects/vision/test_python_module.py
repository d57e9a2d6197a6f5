"""The typed Python package that add_operator_library(... PYTHON_MODULE) generates: `import vision`
loads the library by itself, and every operator is a function with the schema's signature."""
import inspect
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import List, Optional, Tuple, Union

import torch

import vision


def boxes():
    return torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0], [10.0, 10.0, 11.0, 12.0]])


class PythonModule(unittest.TestCase):
    def test_docstrings_come_from_the_yaml_comments_and_the_schema(self):
        self.assertEqual(
            inspect.getdoc(vision.nms),
            "Non-maximum suppression: indices of the boxes kept, highest score first. How many depends on the\n"
            "data (the tag says so to PyTorch 2's compiler).\n\n"
            "vision::nms(Tensor boxes, Tensor scores, float iou_threshold) -> Tensor")
        self.assertIn("vision::box_area(Tensor boxes) -> Tensor", vision.box_area.__doc__)
        self.assertEqual(
            inspect.getdoc(vision.scale_boxes_out),
            "A variant that `autogen:` adds (its kernel is generated).\n\n"
            "vision::scale_boxes.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)")

    def test_signatures(self):
        sig = inspect.signature(vision.scale_add_out)
        self.assertEqual(list(sig.parameters), ["self", "other", "alpha", "out"])
        P = inspect.Parameter
        self.assertEqual([p.kind for p in sig.parameters.values()],
                         [P.POSITIONAL_OR_KEYWORD, P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY, P.KEYWORD_ONLY])
        self.assertEqual(sig.parameters["alpha"].default, 1)
        self.assertIs(sig.parameters["out"].default, P.empty)
        self.assertEqual(sig.parameters["alpha"].annotation, Union[int, float, bool])
        self.assertEqual(sig.return_annotation, torch.Tensor)
        roi = inspect.signature(vision.roi_pool)
        self.assertEqual(roi.parameters["output_size"].annotation, List[int])
        self.assertEqual(roi.parameters["sampling_ratio"].annotation, Optional[int])
        self.assertIsNone(roi.parameters["sampling_ratio"].default)
        self.assertEqual(roi.parameters["mode"].default, "max")
        self.assertEqual(roi.return_annotation, Tuple[torch.Tensor, torch.Tensor])
        grid = inspect.signature(vision.anchor_grid)
        self.assertEqual(grid.parameters["dtype"].annotation, Optional[torch.dtype])
        self.assertEqual(grid.parameters["device"].kind, P.KEYWORD_ONLY)
        self.assertEqual(inspect.signature(vision.stack_boxes).parameters["boxes"].annotation, List[torch.Tensor])
        self.assertIs(inspect.signature(vision.box_iou).parameters["aligned"].default, False)

    def test_every_operator_with_positional_and_keyword_arguments(self):
        scores = torch.tensor([0.9, 0.8, 0.7])
        self.assertEqual(vision.nms(boxes(), scores, 0.1).tolist(), [0, 2])
        self.assertEqual(vision.nms(boxes(), scores=scores, iou_threshold=0.5).tolist(), [0, 1, 2])
        a, b = torch.ones(2, 3), torch.full((2, 3), 2.0)
        self.assertTrue(torch.allclose(vision.scale_add(a, b), torch.full((2, 3), 3.0)))
        self.assertTrue(torch.allclose(vision.scale_add(a, other=b, alpha=0.5), torch.full((2, 3), 2.0)))
        out = torch.empty(0)
        self.assertIs(vision.scale_add_out(a, b, alpha=2, out=out), out)
        self.assertTrue(torch.allclose(out, torch.full((2, 3), 5.0)))
        c = torch.ones(2, 3)
        vision.scale_add_(c, b, alpha=-1)
        self.assertTrue(torch.allclose(c, torch.full((2, 3), -1.0)))
        with self.assertRaises(TypeError):  # keyword-only
            vision.scale_add(a, b, 2)
        self.assertEqual(vision.box_area(boxes()).tolist(), [4.0, 4.0, 2.0])
        self.assertEqual(vision.box_iou(boxes(), boxes(), aligned=True).shape, (3,))
        self.assertEqual(vision.box_iou(boxes(), boxes()).shape, (3, 3))
        grid = vision.anchor_grid([2, 3], 4.0, dtype=torch.float64)
        self.assertEqual((grid.shape, grid.dtype), ((6, 2), torch.float64))
        inp = torch.arange(16.0).reshape(1, 1, 4, 4)
        rois = torch.tensor([[0.0, 0.0, 0.0, 3.0, 3.0]])
        pooled, _ = vision.roi_pool(inp, rois, 1.0, [2, 2])
        self.assertEqual(pooled.flatten().tolist(), [5.0, 7.0, 13.0, 15.0])
        averaged, _ = vision.roi_pool(inp, rois, spatial_scale=1.0, output_size=[1, 1], sampling_ratio=2, mode="avg")
        self.assertEqual(averaged.item(), 7.5)
        self.assertEqual(vision.stack_boxes([boxes(), boxes()]).shape, (6, 4))
        self.assertEqual(vision.stack_boxes([boxes()], weights=torch.tensor([1.0, 0.0, 2.0]))[1].tolist(), [0.0] * 4)
        self.assertEqual(vision.clip_boxes(boxes(), [2, 2]).max().item(), 2.0)
        xywh = vision.box_convert(boxes(), "xyxy", out_fmt="xywh")
        self.assertTrue(torch.allclose(vision.box_convert(xywh, in_fmt="xywh", out_fmt="xyxy"), boxes()))
        self.assertEqual(vision.scale_boxes(boxes(), factor=0.5)[0].tolist(), [0.5, 0.5, 1.5, 1.5])
        width, height = torch.empty(0), torch.empty(0)
        self.assertEqual(vision.box_size_out(boxes(), out0=width, out1=height)[0].tolist(), [2.0, 2.0, 1.0])
        self.assertEqual(height.tolist(), [2.0, 2.0, 2.0])

    def test_every_operator_has_a_function_and_a_stub(self):
        names = {"nms", "scale_add_out", "scale_add", "scale_add_", "box_area", "box_iou", "anchor_grid",
                 "roi_pool", "stack_boxes", "clip_boxes", "box_convert", "scale_boxes_", "box_size",
                 # the variants autogen: adds
                 "scale_boxes", "scale_boxes_out", "box_size_out"}
        self.assertEqual(set(vision.__all__), names | {"load_library"})
        stub = (pathlib.Path(vision.__file__).parent / "__init__.pyi").read_text()
        for name in names:
            self.assertIn(f"\ndef {name}(", stub)
        self.assertIn("def scale_add_out(self: torch.Tensor, other: torch.Tensor, *, alpha: Union[int, float, bool] = 1, "
                      "out: torch.Tensor) -> torch.Tensor: ...", stub)


TORCH2 = int(torch.__version__.split(".")[0]) >= 2


class PythonFakeKernels(unittest.TestCase):
    """nms's entry says `fake: python`: its fake kernel is in fake.py (PYTHON_FAKES), which the package
    imports as vision.fake once the library is loaded (PyTorch 2; PyTorch 1 has no fake tensors)."""

    def test_the_package_imports_them_on_pytorch2(self):
        self.assertEqual("vision.fake" in sys.modules, TORCH2)
        self.assertTrue((pathlib.Path(vision.__file__).parent / "fake.py").exists())
        if TORCH2:
            from torch._subclasses.fake_tensor import FakeTensorMode
            from torch.fx.experimental.symbolic_shapes import ShapeEnv
            with FakeTensorMode(shape_env=ShapeEnv(allow_dynamic_output_shape_ops=True)):
                keep = vision.nms(torch.empty(5, 4), torch.empty(5), 0.5)
            self.assertIsInstance(keep.shape[0], torch.SymInt)  # a size made by the fake kernel

    @unittest.skipUnless(TORCH2, "PyTorch 1 has no fake tensors: the package does not import its fake kernels")
    def test_a_missing_or_undeclared_fake_kernel_is_an_error_at_import(self):
        # A copy of the package whose fake.py lacks nms's fake kernel, and has one for anchor_grid
        # (whose entry does not say `fake: python`).
        with tempfile.TemporaryDirectory() as tmp:
            package = pathlib.Path(tmp) / "vision"
            shutil.copytree(pathlib.Path(vision.__file__).parent, package)
            (package / "fake.py").write_text(
                "import torch\n\n@torch.library.register_fake('vision::anchor_grid')\n"
                "def anchor_grid_fake(sizes, stride, *, dtype=None, layout=None, device=None, pin_memory=None):\n"
                "    return torch.empty(0)\n")
            env = dict(os.environ, PYTHONPATH=tmp, OPGEN_VISION_LIBRARY=vision._BUILT_LIBRARY)
            run = subprocess.run([sys.executable, "-c", "import vision"], env=env, capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("RuntimeError: the fake kernels of operator library vision:\n"
                      "ops.yaml:9:9: vision::nms says `fake: python`, and vision/fake.py registers no fake kernel for it",
                      run.stderr)
        self.assertRegex(run.stderr, r"ops.yaml:\d+:3: vision/fake.py registers a fake kernel for vision::anchor_grid, "
                                     r"whose entry does not say `fake: python`")


if __name__ == "__main__":
    unittest.main()
