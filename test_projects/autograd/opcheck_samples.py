"""The inputs opgen_add_opcheck_test checks the diffops operators with (see OpGenOpcheck.py): inputs
that require grad for the operators with formulas, so that the checks also differentiate through
them; none for those without (their gradient is an error by design)."""
import torch


def x(*shape, grad=True):
    return torch.rand(*shape, dtype=torch.double).add_(0.5).requires_grad_(grad)


def samples():
    return {
        "mul_add": [(x(3), x(3), x(3))],
        "mul_add.out": [((x(3, grad=False), x(3, grad=False), x(3, grad=False)), {"out": torch.empty(3, dtype=torch.double)})],
        "cube": [(x(2, 3),)],
        "cube_": [(x(2, 3, grad=False),)],
        "cube_backward": [(x(3, grad=False), x(3, grad=False))],
        "exp2x": [(x(3),)],
        "exp2x_": [(x(3, grad=False),)],
        "scale": [(x(3), 2.5)],
        "scale_": [(x(3, grad=False), 2.5)],
        "mul_by_": [(x(3, grad=False), x(3))],
        "power": [(x(3), 3)],
        "max_along": [(x(2, 3), 1)],
        "hypot2": [(x(3), x(3))],
        "hypot2_backward": [(x(3, grad=False), x(3, grad=False), x(3, grad=False), x(3, grad=False), [True, True])],
        "lerp_by": [(x(3), x(3), x(3, grad=False))],
        "sign_log": [(x(3, grad=False),)],
        "square_wrong": [(x(3, grad=False),)],
        "plain": [(x(3, grad=False),)],
        "mul_maybe": [(x(3), x(3)), (x(3), None)],
        "stack_scaled": [([x(3), x(3)], x(1))],
        "sincos": [(x(3),)],
        "masked_scale": [(x(3), x(3, grad=False)), (x(3), None)],
        "swap01": [(x(2, 3),)],
        "swap01_copy": [(x(2, 3, grad=False),)],
        "weighted_sum": [([x(3), x(3)], x(2))],
        "argmax_flat": [(x(2, 3),)],
        "scale_by_name": [(x(3),), ((x(3),), {"mode": "triple"})],
        "weighted_sum_backward": [(x(3, grad=False), [x(3, grad=False), x(3, grad=False)], x(2, grad=False), [True, True])],
    }


# Every operator passes every check on PyTorch 2.14.1, swap01 (a view of self) through the Functionalize
# kernel opgen generates for it (with swap01_copy and swap01_inverse of kernels.cpp).
EXPECTED_FAILURES = {}
