"""Loads the vision operator library into PyTorch and calls its operators from Python."""
import sys
import unittest

import torch

LIBRARY = sys.argv.pop(1)
torch.ops.load_library(LIBRARY)
ops = torch.ops.vision


def boxes():
    return torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0], [10.0, 10.0, 11.0, 12.0]])


class VisionOps(unittest.TestCase):
    def test_positional_and_keyword_arguments(self):
        scores = torch.tensor([0.9, 0.8, 0.7])
        self.assertEqual(ops.nms(boxes(), scores, 0.1).tolist(), [0, 2])
        self.assertEqual(ops.nms(boxes(), scores, iou_threshold=0.5).tolist(), [0, 1, 2])
        a, b = torch.ones(2, 3), torch.full((2, 3), 2.0)
        self.assertTrue(torch.allclose(ops.scale_add(a, b), torch.full((2, 3), 3.0)))
        self.assertTrue(torch.allclose(ops.scale_add(a, b, alpha=0.5), torch.full((2, 3), 2.0)))
        out = torch.empty(0)
        ops.scale_add.out(a, b, alpha=2, out=out)
        self.assertTrue(torch.allclose(out, torch.full((2, 3), 5.0)))
        c = torch.ones(2, 3)
        ops.scale_add_(c, b, alpha=-1)
        self.assertTrue(torch.allclose(c, torch.full((2, 3), -1.0)))

    def test_composites_factories_lists_and_tuples(self):
        self.assertEqual(ops.box_area(boxes()).tolist(), [4.0, 4.0, 2.0])
        self.assertEqual(ops.box_iou(boxes(), boxes(), aligned=True).shape, (3,))
        grid = ops.anchor_grid([2, 3], 4.0, dtype=torch.float64)
        self.assertEqual((grid.shape, grid.dtype), ((6, 2), torch.float64))
        self.assertEqual(ops.stack_boxes([boxes(), boxes()]).shape, (6, 4))
        self.assertEqual(ops.stack_boxes([boxes()], weights=torch.tensor([1.0, 0.0, 2.0]))[1].tolist(), [0.0] * 4)
        inp = torch.arange(16.0).reshape(1, 1, 4, 4)
        rois = torch.tensor([[0.0, 0.0, 0.0, 3.0, 3.0]])
        pooled, argmax = ops.roi_pool(inp, rois, 1.0, [2, 2])
        self.assertEqual(pooled.flatten().tolist(), [5.0, 7.0, 13.0, 15.0])
        averaged, _ = ops.roi_pool(inp, rois, 1.0, [1, 1], sampling_ratio=2, mode="avg")
        self.assertEqual(averaged.item(), 7.5)
        self.assertEqual(ops.clip_boxes(boxes(), [2, 2]).max().item(), 2.0)
        self.assertTrue(torch.allclose(ops.box_convert(ops.box_convert(boxes(), "xyxy", "xywh"), "xywh", "xyxy"), boxes()))

    def test_autogen_functional_and_out_variants(self):
        scaled = [[-1.0, -1.0, 3.0, 3.0], [0.0, 0.0, 4.0, 4.0], [9.5, 9.0, 11.5, 13.0]]
        original = boxes()
        self.assertEqual(ops.scale_boxes(original, 2.0).tolist(), scaled)  # the generated functional kernel
        self.assertEqual(original.tolist(), boxes().tolist())  # ... leaves its input alone
        out = torch.empty(0)
        self.assertIs(ops.scale_boxes.out(boxes(), 2.0, out=out), out)  # the generated out= kernel
        self.assertEqual(out.tolist(), scaled)
        b = boxes()
        ops.scale_boxes_(b, 2.0)  # the kernel written by hand
        self.assertEqual(b.tolist(), scaled)
        width, height = torch.empty(0), torch.empty(0)
        ops.box_size.out(boxes(), out0=width, out1=height)
        self.assertEqual((width.tolist(), height.tolist()), ([2.0, 2.0, 1.0], [2.0, 2.0, 2.0]))
        with self.assertRaisesRegex(RuntimeError, "dtype"):
            ops.box_size.out(boxes(), out0=torch.empty(3, dtype=torch.long), out1=height)

    def test_meta_tensors(self):
        b = torch.empty(5, 4, device="meta")
        width, height = ops.box_size(b)
        self.assertEqual((width.device.type, height.shape), ("meta", (5,)))

    def test_without_the_package_a_python_fake_kernel_is_missing_and_named(self):
        # nms's fake kernel is in the generated package (vision.fake), which this test does not import.
        b = torch.empty(5, 4, device="meta")
        if int(torch.__version__.split(".")[0]) >= 2:
            pattern = "vision::nms: We could not find the fake impl for this operator. The operator specified that " \
                      "you may need to import the 'vision.fake' Python module"
            with self.assertRaisesRegex(NotImplementedError, pattern):
                ops.nms(b, torch.empty(5, device="meta"), 0.5)
        else:  # (no set_python_module in PyTorch 1)
            with self.assertRaisesRegex(RuntimeError, "nms.*Meta"):
                ops.nms(b, torch.empty(5, device="meta"), 0.5)

    def test_wrong_calls_raise_clear_errors(self):
        with self.assertRaisesRegex(RuntimeError, "nms"):
            ops.nms(boxes())  # missing arguments
        with self.assertRaisesRegex(RuntimeError, "alpha|unexpected|keyword"):
            ops.scale_add(torch.ones(2), torch.ones(2), beta=1)  # no such argument
        with self.assertRaisesRegex(RuntimeError, "same shape"):
            ops.scale_add(torch.ones(2), torch.ones(3))  # the meta function's check
        with self.assertRaisesRegex(RuntimeError, "'max' or 'avg'"):
            ops.roi_pool(torch.ones(1, 1, 2, 2), torch.zeros(1, 5), 1.0, [1, 1], mode="median")


if __name__ == "__main__":
    unittest.main()
