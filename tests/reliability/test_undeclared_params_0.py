"""Undeclared or junk query parameters, share 0 of the GET routes (undeclared.py)."""

import pytest

from host.testing import create_test_user

from .undeclared import JUNK, check_undeclared_or_junk_params


@pytest.fixture(scope="module")
def shared_site(make_module_app):
    """Every built-in plugin, and an administrator: the checks only read, so both values share it."""
    app = make_module_app()
    return app, create_test_user(app, "administrator").headers


@pytest.mark.parametrize("junk", JUNK)
def test_undeclared_or_junk_params_never_answer_500(shared_site, junk):
    app, admin_headers = shared_site
    check_undeclared_or_junk_params(app, admin_headers, junk, __file__)
