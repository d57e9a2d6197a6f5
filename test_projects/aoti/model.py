"""A model that calls the operators of aotiops (ops.yaml), and inputs for it."""
import torch

import aotiops

# torch.export functionalizes a custom in-place operator only with at::Tag's `inplace` (2.13 on):
# before, the model scales out of place.
INPLACE = hasattr(torch.Tag, "inplace")


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor):
        s = aotiops.scaled_add(x, y, alpha=0.5)
        low, high = aotiops.row_minmax(s)
        picked = aotiops.pick_columns(s, [2, 0], bias=y[0, :2])
        # in place: through the proxy executor
        scaled = aotiops.scale_(s.clone(), 3.0) if INPLACE else s * 3.0
        return torch.relu(picked) + low.unsqueeze(1), high, scaled


def example_inputs():
    x = torch.linspace(-2.0, 3.0, 12).reshape(4, 3)
    y = torch.linspace(1.0, -1.5, 12).reshape(4, 3)
    return x, y
