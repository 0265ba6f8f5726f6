"""Signing in to the admin area with WebTest, as a browser would: the test kit's helpers under the short
names these tests use (host.testing: admin_browser, admin_sign_in, admin_csrf, admin_form)."""

from __future__ import annotations

from host.testing import ADMIN_TEST_ADDRESS as ADDRESS
from host.testing import admin_browser as browser
from host.testing import admin_csrf as csrf_of
from host.testing import admin_form as form_with
from host.testing import admin_sign_in as sign_in

__all__ = ["ADDRESS", "browser", "csrf_of", "form_with", "sign_in"]
