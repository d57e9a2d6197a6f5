"""The diffops operators from Python: torch.autograd.gradcheck (and forward-mode checks) of the
formulas in derivatives.yaml, through the Autograd kernels opgen generated."""
import sys
import unittest
import warnings

import torch
from torch.autograd import gradcheck

LIBRARY = sys.argv.pop(1)
torch.ops.load_library(LIBRARY)
ops = torch.ops.diffops


def inputs(*shapes, seed=0):
    torch.manual_seed(seed)
    return tuple((torch.rand(*s, dtype=torch.double) + 0.5).requires_grad_() for s in shapes)


class Gradients(unittest.TestCase):
    def test_backward_formulas(self):
        cases = [
            (ops.mul_add, inputs((3, 4), (3, 4), (3, 4), seed=1)),
            (ops.cube, inputs((5,), seed=2)),
            (ops.exp2x, inputs((2, 3), seed=3)),
            (lambda x: ops.scale(x, 2.5), inputs((4,), seed=4)),
            (lambda x: ops.power(x, 3), inputs((4,), seed=5)),
            (lambda x: ops.max_along(x, 1)[0], inputs((3, 5), seed=6)),
            (ops.hypot2, inputs((6,), (6,), seed=7)),
            (lambda a, b: ops.lerp_by(a, b, torch.full((3,), 0.25, dtype=torch.double)), inputs((3,), (3,), seed=8)),
            (lambda x: ops.scale_(x * 1, -1.5), inputs((4,), seed=9)),
            (lambda a, b: ops.mul_by_(a * 1, b), inputs((4,), (4,), seed=15)),  # self: its value before
        ]
        for fn, args in cases:
            with self.subTest(fn=getattr(fn, "__name__", fn)):
                self.assertTrue(gradcheck(fn, args))

    def test_forward_formulas(self):
        cases = [
            (ops.mul_add, inputs((3,), (3,), (3,), seed=10)),  # written out
            (ops.cube, inputs((4,), seed=11)),                  # auto_element_wise
            (ops.exp2x, inputs((4,), seed=12)),                 # uses result
            (lambda x: ops.scale(x, -2.0), inputs((4,), seed=13)),  # auto_linear
        ]
        for fn, args in cases:
            with self.subTest(fn=getattr(fn, "__name__", fn)):
                self.assertTrue(gradcheck(fn, args, check_forward_ad=True, check_backward_ad=False,
                                          check_undefined_grad=False, check_batched_grad=False))

    def test_a_wrong_formula_is_caught(self):
        # square_wrong's formula is grad * self, not 2 * grad * self: gradcheck must notice.
        self.assertFalse(gradcheck(ops.square_wrong, inputs((3,), seed=14), raise_exception=False))

    def test_grad_fn(self):
        x, y, z = inputs((2,), (2,), (2,))
        self.assertEqual(ops.mul_add(x, y, z).grad_fn.name(), "MulAddBackward0")
        values, indices = ops.max_along(x.view(1, 2), 1)
        self.assertTrue(values.requires_grad)
        self.assertFalse(indices.requires_grad)

    def test_saved_values_are_released_after_backward(self):
        x, y, z = inputs((2,), (2,), (2,))
        out = ops.mul_add(x, y, z).sum()
        out.backward(retain_graph=True)
        out.backward()  # kept: retain_graph
        with self.assertRaisesRegex(RuntimeError, "backward through the graph a second time"):
            out.backward()  # released after the last backward (release_variables)

    def test_in_place(self):
        (x,) = inputs((3,))
        with self.assertRaisesRegex(RuntimeError, "a leaf Variable that requires grad"):
            ops.scale_(x, 2.0)
        y = x * 1
        before = y._version
        ops.scale_(y, 2.0)
        self.assertEqual(y._version, before + 1)
        z = x * 1
        view = z[1:]
        ops.scale_(view, 4.0)  # in place on a view: the base's history is rebased
        z.sum().backward()
        self.assertEqual(x.grad.tolist(), [1.0, 4.0, 4.0])

    def test_not_implemented(self):
        (x,) = inputs((3,))
        with self.assertRaisesRegex(RuntimeError, "the derivative for 'sign_log' is not implemented"):
            ops.sign_log(x).sum().backward()

    def test_operator_without_formula_keeps_the_fallback(self):
        # plain has no entry: no Autograd kernel; PyTorch's fallback records the ATen calls of its
        # kernel (self + 1), as without derivatives.yaml (PyTorch 2 also warns on backward).
        (x,) = inputs((3,))
        y = ops.plain(x)
        self.assertEqual(y.grad_fn.name(), "AddBackward1")  # the kernel's self + 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y.sum().backward()
        self.assertEqual(x.grad.tolist(), [1.0, 1.0, 1.0])


if __name__ == "__main__":
    unittest.main()
