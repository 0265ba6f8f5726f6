"""The admin area's one stylesheet, served by sitehost at /admin/style.css (no CDN, no build step).

The rules live in static/style.css beside this module: system fonts, a single column on phones, a visible
focus ring on every control, and colours that keep at least 4.5:1 contrast. Read once, at import.
"""

from pathlib import Path

STYLESHEET = (Path(__file__).resolve().parent / "static" / "style.css").read_text(encoding="utf-8")
