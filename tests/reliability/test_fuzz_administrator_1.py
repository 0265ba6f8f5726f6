"""Fuzzing as an administrator, share 1 of the operations (fuzzing.py)."""

from .fuzzing import fuzz_share


def test_fuzz_administrator_share_1(tmp_path_factory):
    operations, examples = fuzz_share(tmp_path_factory, __file__)
    assert operations > 0 and examples >= operations
