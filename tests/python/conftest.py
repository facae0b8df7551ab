"""Shared paths for the package's tests: the source tree, the cases, the program."""
import os
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def pytest_configure(config):
    """The installed package must be built from the libraries of this build: pip copies
    it into the environment, and a rebuild of the libraries does not reach the copy."""
    import dempact._core
    build = pathlib.Path(os.environ.get("DEMPACT_BUILD_DIR", ROOT / "build"))
    built = os.path.getmtime(dempact._core.__file__)
    for lib in ("libdempact.a", "libdempact_io.a"):
        path = build / lib
        if path.exists() and os.path.getmtime(path) > built:
            pytest.exit(f"{dempact._core.__file__} is older than {path}: reinstall the package "
                        "(bash tools/setup.sh)", returncode=1)


@pytest.fixture
def here():
    return HERE


@pytest.fixture
def cases():
    return ROOT / "cases"


@pytest.fixture
def program():
    """The dempact program: DEMPACT_PROGRAM (ctest sets it), else build/dempact."""
    path = pathlib.Path(os.environ.get("DEMPACT_PROGRAM", ROOT / "build" / "dempact"))
    if not path.exists():
        pytest.fail(f"{path}: no dempact program (build it, or set DEMPACT_PROGRAM)")
    return path
