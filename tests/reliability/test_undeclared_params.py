"""The undeclared-parameter checks (undeclared.py) run in one file per share: all there, every GET route in one."""

from __future__ import annotations

from pathlib import Path

from .undeclared import UNDECLARED_FILE, UNDECLARED_SHARES, get_routes, share_of_file, share_of_route


def test_the_shares_cover_every_get_route_exactly_once(app):
    here = Path(__file__).parent
    files = sorted(path.name for path in here.glob(UNDECLARED_FILE.format(share="*")))
    assert files == sorted(UNDECLARED_FILE.format(share=share) for share in range(UNDECLARED_SHARES))
    assert sorted(share_of_file(here / name) for name in files) == list(range(UNDECLARED_SHARES))
    paths = [compiled.path for compiled in get_routes(app)]
    assert len(paths) == len(set(paths)) and len(paths) > 20
    shares = {share: {path for path in paths if share_of_route(path) == share} for share in range(UNDECLARED_SHARES)}
    assert all(len(found) * 27 > 100 for found in shares.values()), {share: len(found) for share, found in shares.items()}
    assert sum(len(found) for found in shares.values()) == len(paths)
    assert set().union(*shares.values()) == set(paths)
