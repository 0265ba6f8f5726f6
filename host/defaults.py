"""The host's own hook implementations: essential, loaded first, never disabled.

They are marked trylast so that any plugin's answer comes before the host's.
"""

from __future__ import annotations

from .hookspecs import hookimpl


@hookimpl(trylast=True)
def authenticate(app, request):
    """Nobody has signed in unless an authentication plugin says so."""
    return None
