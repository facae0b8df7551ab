"""Shared paths for the package's tests: the source tree, the cases, the program."""
import os
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


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
