"""Undeclared or junk query parameters, share 0 of the GET routes (undeclared.py)."""

import pytest

from .undeclared import JUNK, check_undeclared_or_junk_params


@pytest.mark.parametrize("junk", JUNK)
def test_undeclared_or_junk_params_never_answer_500(shared_site, junk):
    app, admin_headers = shared_site
    checked = check_undeclared_or_junk_params(app, admin_headers, junk, __file__)
    assert checked > 100
