# ${generated_comment}
# Stubs of the operators of library ${namespace}, for editors and type checkers.
from typing import Any, List, Optional, Tuple, Union

import torch

def load_library(path: str) -> None: ...
${functions}
