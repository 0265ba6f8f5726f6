"""The fuzzing (fuzzing.py) runs in one file per caller and share: all of them there, every operation in one share."""

from __future__ import annotations

from pathlib import Path

from .fuzzing import (DOCUMENTED_REFUSALS, FUZZ_CALLERS, FUZZ_FILE, FUZZ_SHARES, caller_and_share_of_file,
                      share_of_operation)

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def test_the_fuzz_shares_cover_every_operation_exactly_once(site):
    here = Path(__file__).parent
    files = sorted(path.name for path in here.glob(FUZZ_FILE.format(caller="*", share="*")))
    expected = [(caller, share) for caller in FUZZ_CALLERS for share in range(FUZZ_SHARES)]
    assert files == sorted(FUZZ_FILE.format(caller=caller, share=share) for caller, share in expected)
    assert sorted(caller_and_share_of_file(here / name) for name in files) == sorted(expected)
    document = site.client.get("/openapi.json", status=200).json
    operations = [(path, method) for path, item in document["paths"].items() for method in item
                  if method in HTTP_METHODS]
    assert len(operations) >= 20 and len(operations) == len(set(operations))
    shares = {share: {(path, method) for path, method in operations if share_of_operation(path) == share}
              for share in range(FUZZ_SHARES)}
    assert all(len(found) >= 10 for found in shares.values()), {share: len(found) for share, found in shares.items()}
    assert sum(len(found) for found in shares.values()) == len(operations)
    assert set().union(*shares.values()) == set(operations)


def test_every_documented_refusal_has_a_reason_and_is_in_the_docs():
    """The fuzzing's exceptions are the list docs/openapi.md gives to client authors, each with its reason."""
    docs = (Path(__file__).parents[2] / "docs" / "openapi.md").read_text()
    assert len(DOCUMENTED_REFUSALS) >= 20
    for key, reason in DOCUMENTED_REFUSALS.items():
        code, _, arg = key.partition(":")
        assert len(reason) > 20, key
        assert f"`{code}" in docs and (not arg or f"{arg}`" in docs), key
