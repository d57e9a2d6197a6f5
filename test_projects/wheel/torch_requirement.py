"""The wheel's requirement on PyTorch, for scikit-build-core (a dynamic metadata provider).

A library built against libtorch X.Y runs with PyTorch X.Y only: the wheel requires torch==X.Y.*, X.Y
the release of the torch installed where the wheel is built (pip wheel --no-build-isolation), the one
CMake's find_package(Torch) finds there too (install_operator_library checks that they agree).
"""
import importlib.metadata


def dynamic_metadata(field, settings=None):
    if field != "dependencies":
        raise RuntimeError(f"torch_requirement provides the dependencies, not {field}")
    try:
        version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError("torch is not installed: build the wheel where the PyTorch it is for is installed "
                           "(pip wheel --no-build-isolation)") from None
    major, minor = version.split(".")[:2]
    return [f"torch=={major}.{minor}.*"]
