# ${generated_comment}
"""The operators of library ${namespace} as typed Python functions (each calls torch.ops.${namespace}).

Importing the package loads the library: the shared library named by the environment variable
${environment_variable} if set (empty: load nothing, call load_library yourself), else the one the
package was generated for, if it exists.
"""
import os
from typing import Any, List, Optional, Tuple, Union

import torch

__all__ = ["load_library", ${all}]

_ENVIRONMENT_VARIABLE = "${environment_variable}"
_BUILT_LIBRARY = ${library_path}${fake_kernels}


def load_library(path: str) -> None:
    """Loads the shared library that registers the operators of ${namespace} (torch.ops.load_library)."""
    torch.ops.load_library(path)${after_load}


def _load_default_library() -> None:
    path = os.environ.get(_ENVIRONMENT_VARIABLE)
    if path is None:
        path = _BUILT_LIBRARY if _BUILT_LIBRARY is not None and os.path.exists(_BUILT_LIBRARY) else ""
    if path:
        load_library(path)


_load_default_library()


${functions}
