"""Share 2 of the write permission matrix: the write routes whose pattern hashes to 2 (matrix.py)."""

from .matrix import check_matrix_share


def test_write_permission_matrix_share_2(site, site_users):
    routes = check_matrix_share(site, site_users, __file__)
    assert routes and all(method in ("POST", "PUT", "PATCH", "DELETE") for method, _pattern in routes)
