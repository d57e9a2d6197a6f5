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
            (lambda x: ops.exp2x_(x * 1), inputs((4,), seed=28)),                # result: the modified self
            (lambda x: ops.cube_(x * 1), inputs((4,), seed=36)),                 # cube's formulas, self before
            (lambda x: ops.exp2x_((x * 1)[1:]), inputs((4,), seed=29)),          # ... a view modified in place
            (ops.mul_maybe, inputs((4,), (4,), seed=16)),                       # Tensor? given
            (lambda x: ops.mul_maybe(x, None), inputs((4,), seed=17)),           # Tensor? absent
            (lambda a, b, s: ops.stack_scaled([a, b], s), inputs((3,), (3,), (3,), seed=18)),  # Tensor[]
            (lambda x: ops.sincos(x)[0], inputs((4,), seed=19)),  # only one output's gradient defined
            (ops.sincos, inputs((4,), seed=19)),
            (lambda a, b, w: ops.weighted_sum([a, b], w), inputs((3,), (3,), (2,), seed=27)),  # list + tensor, one formula
            (lambda x: ops.scale_by_name(x, "triple"), inputs((3,), seed=37)),  # the node keeps a str
            (ops.scale_by_name, inputs((3,), seed=38)),                          # ... its default
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
            (lambda x: ops.max_along(x, 1)[0], inputs((3, 5), seed=20)),   # one of two outputs
            (ops.sincos, inputs((4,), seed=21)),                             # sine, cosine: one formula
            (ops.mul_maybe, inputs((4,), (4,), seed=22)),                    # Tensor? given
            (lambda x: ops.mul_maybe(x, None), inputs((4,), seed=23)),       # Tensor? absent
            (lambda a, b, s: ops.stack_scaled([a, b], s), inputs((3,), (3,), (3,), seed=24)),  # Tensor[]
            (lambda x: ops.scale_(x * 1, -1.5), inputs((4,), seed=25)),      # in place, auto_linear
            (lambda a, b: ops.mul_by_(a * 1, b), inputs((4,), (4,), seed=26)),  # in place, self_t.mul_(...)
            (lambda x: ops.exp2x_(x * 1), inputs((4,), seed=35)),              # in place, result
            (lambda x: ops.cube_(x * 1), inputs((4,), seed=37)),               # cube's auto_element_wise
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

    def test_optional_and_list_inputs(self):
        x, w = inputs((3,), (3,), seed=30)
        self.assertEqual(ops.mul_maybe(x, w).grad_fn.name(), "MulMaybeBackward0")
        ops.mul_maybe(x, None).sum().backward()  # no gradient for the absent weight: skipped
        self.assertEqual(x.grad.tolist(), [1.0, 1.0, 1.0])
        a, b, s = inputs((2,), (2,), (2,), seed=31)
        b.requires_grad_(False)
        out = ops.stack_scaled([a, b], s)
        out.sum().backward()
        self.assertTrue(torch.equal(a.grad, s.detach()))
        self.assertIsNone(b.grad)
        self.assertTrue(torch.allclose(s.grad, (a + b).detach()))
        out2 = ops.stack_scaled([a, b], s).sum()
        out2.backward()
        with self.assertRaisesRegex(RuntimeError, "backward through the graph a second time"):
            out2.backward()  # the saved list was released

    def test_optional_input_without_formula_must_not_require_grad(self):
        x, m = inputs((3,), (3,), seed=33)
        self.assertTrue(torch.allclose(ops.masked_scale(x, m.detach()), (x * m).detach()))
        with self.assertRaisesRegex(RuntimeError, "The function 'masked_scale' is not differentiable with respect to "
                                                  "argument 'mask'"):
            ops.masked_scale(x, m)

    def test_in_place_forward_mode(self):
        import torch.autograd.forward_ad as fwAD
        x, t = torch.tensor([1.0, 2.0], dtype=torch.double), torch.tensor([0.5, -1.0], dtype=torch.double)
        o, ot = torch.tensor([3.0, 4.0], dtype=torch.double), torch.tensor([1.0, 1.0], dtype=torch.double)
        with fwAD.dual_level():
            dual = fwAD.make_dual(x.clone(), t.clone())
            tangent_before = fwAD.unpack_dual(dual).tangent
            ops.mul_by_(dual, fwAD.make_dual(o, ot))
            tangent = fwAD.unpack_dual(dual).tangent
            self.assertEqual(tangent.tolist(), (t * o + x * ot).tolist())
            self.assertEqual(tangent.data_ptr(), tangent_before.data_ptr())  # modified in place
            plain = x.clone()  # no tangent of its own: zeros, then the other input's contribution
            ops.mul_by_(plain, fwAD.make_dual(o, ot))
            self.assertEqual(fwAD.unpack_dual(plain).tangent.tolist(), (x * ot).tolist())

    def test_forward_mode_without_formula_fails(self):
        import torch.autograd.forward_ad as fwAD
        with fwAD.dual_level():
            dual = fwAD.make_dual(torch.ones(3, dtype=torch.double), torch.ones(3, dtype=torch.double))
            with self.assertRaisesRegex(RuntimeError, "Trying to use forward AD with power that does not support it "
                                                      "because it has not been implemented yet"):
                ops.power(dual, 2)
            ops.power(torch.ones(3, dtype=torch.double), 2)  # no tangent: no error

    def test_out_overload_is_not_differentiable(self):
        x, y, z = inputs((3,), (3,), (3,), seed=32)
        out = torch.empty(3, dtype=torch.double)
        with self.assertRaisesRegex(RuntimeError, r"mul_add\(\): functions with out=\.\.\. arguments don't support "
                                                  "automatic differentiation, but one of the arguments requires grad."):
            ops.mul_add.out(x, y, z, out=out)
        version = out._version
        ops.mul_add.out(x.detach(), y.detach(), z.detach(), out=out)
        self.assertTrue(torch.allclose(out, (x * y + z).detach()))
        self.assertEqual(out._version, version + 1)  # the ADInplaceOrView kernel bumps it
        with self.assertRaisesRegex(RuntimeError, "mul_add\\(\\): functions with out="):
            ops.mul_add.out(x.detach(), y.detach(), z.detach(), out=torch.empty(3, dtype=torch.double, requires_grad=True))
        import torch.autograd.forward_ad as fwAD
        with fwAD.dual_level():
            dual = fwAD.make_dual(x.detach(), torch.ones(3, dtype=torch.double))
            with self.assertRaisesRegex(RuntimeError, "Trying to use forward AD with mul_add_out that does not support it "
                                                      "because it is an out= function"):
                ops.mul_add.out(dual, y.detach(), z.detach(), out=out)

    def test_view(self):
        (x,) = inputs((2, 3), seed=34)
        self.assertTrue(gradcheck(ops.swap01, (x,), check_forward_ad=True))
        y = x * 1
        v = ops.swap01(y)
        self.assertTrue(v._is_view())
        self.assertIs(v._base, y)
        self.assertEqual(v.grad_fn.name(), "Swap01Backward0")
        before = y._version
        v.mul_(2)  # in place on the view: the base's version and history change
        self.assertEqual(y._version, before + 1)
        y.sum().backward()
        self.assertEqual(x.grad.tolist(), [[2.0] * 3] * 2)
        with self.assertRaisesRegex(RuntimeError, "a view of a leaf Variable that requires grad"):
            ops.swap01(x).mul_(2)
        with torch.no_grad():
            w = ops.swap01(y)
        self.assertIs(w._base, y)

    def test_view_mutation_under_functionalization(self):
        # A mutation through the view reaches its base and the input, functionalized (through the
        # view's Functionalize kernel, swap01_copy and swap01_inverse) as in eager mode: by
        # functionalize, with views or only copies, and by torch.compile (AOTAutograd), where it is.
        def f(a):
            b = a * 2
            v = ops.swap01(b)
            v.add_(torch.arange(6, dtype=a.dtype).reshape(3, 2))  # not symmetric: a wrong inverse shows
            ops.swap01(a).mul_(3)  # the input, through a view
            return b, v * 1
        def run(fn):
            a = torch.arange(6, dtype=torch.double).reshape(2, 3)
            return fn(a) + (a,)
        expected = run(f)
        if hasattr(torch, "func"):
            functionalize = torch.func.functionalize
        else:  # PyTorch 1
            from functorch import functionalize
        runs = {"functionalize": functionalize(f), "functionalize, copies": functionalize(f, remove="mutations_and_views")}
        if hasattr(torch, "compile"):
            for dynamic in (False, True):
                torch._dynamo.reset()
                runs[f"compile dynamic={dynamic}"] = torch.compile(f, backend="aot_eager", fullgraph=True, dynamic=dynamic)
        for what, fn in runs.items():
            for got, want in zip(run(fn), expected):
                self.assertEqual(got.tolist(), want.tolist(), what)

    def test_in_place_overload_reuses_the_functional_entry(self):
        (x,) = inputs((3,), seed=38)
        y = x * 1
        ops.cube_(y)
        self.assertEqual(y.grad_fn.name(), "CubeBackward0")  # cube's node, as torchgen's
        y.sum().backward()
        self.assertTrue(torch.allclose(x.grad, 3 * x.detach() ** 2))
        with self.assertRaisesRegex(RuntimeError, "a leaf Variable that requires grad"):
            ops.cube_(x)

    def test_not_implemented(self):
        (x,) = inputs((3,))
        with self.assertRaisesRegex(RuntimeError, "the derivative for 'sign_log' is not implemented"):
            ops.sign_log(x).sum().backward()

    def test_entry_without_differentiable_input_is_not_differentiable(self):
        # argmax_flat's entry declares self non_differentiable: it runs below autograd.
        (x,) = inputs((2, 3))
        i = ops.argmax_flat(x)
        self.assertFalse(i.requires_grad)
        self.assertIsNone(i.grad_fn)
        self.assertEqual(i.item(), x.detach().flatten().argmax().item())

    def test_operator_without_formula_is_not_differentiable(self):
        # plain has a kernel and no entry: its Autograd kernel (PyTorch's not-implemented fallback) runs
        # it below autograd, and a gradient that reaches it is an error naming it.
        (x,) = inputs((3,))
        y = ops.plain(x)
        self.assertTrue(y.requires_grad)
        self.assertNotEqual(y.grad_fn.name(), "AddBackward1")  # not the ATen calls of its kernel
        with self.assertRaisesRegex(RuntimeError, "derivative for .*plain is not implemented"):
            y.sum().backward()
        with torch.no_grad():
            self.assertEqual(ops.plain(x).tolist(), (x + 1).tolist())

if __name__ == "__main__":
    unittest.main()
