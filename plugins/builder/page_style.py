"""The layout CSS HTML views of builder documents carry in their head (a constant: no user data)."""

from __future__ import annotations

from .documents import DOCUMENT_TYPES, is_indexed

PAGE_CSS = (
    ".builder-page{font-family:var(--builder-font-text-family,system-ui,sans-serif);"
    "color:var(--builder-color-text,#333);line-height:1.5}"
    ".builder-section{padding:2.5rem 1rem}"
    ".builder-section-inner{display:flex;flex-wrap:wrap;gap:2rem;max-width:1140px;margin:0 auto}"
    ".builder-column{flex:1 1 0;min-width:260px;box-sizing:border-box}"
    ".builder-container{display:flex;gap:1rem;max-width:1140px;margin:0 auto;box-sizing:border-box}"
    ".builder-heading{font-family:var(--builder-font-primary-family,Georgia,serif);"
    "font-weight:var(--builder-font-primary-weight,700);color:var(--builder-color-primary,#1F4E79);margin:0 0 .5em}"
    ".builder-widget{margin-bottom:1.25rem}"
    ".builder-text{font-family:var(--builder-font-text-family,system-ui,sans-serif)}"
    ".builder-button{display:inline-block;padding:.8em 1.6em;border-radius:4px;text-decoration:none;"
    "font-weight:600;font-family:var(--builder-font-accent-family,system-ui,sans-serif)}"
    ".builder-button:focus,.builder-button:hover{outline:3px solid var(--builder-color-secondary,#F2A900);"
    "outline-offset:2px}"
    ".builder-image{margin:0}.builder-image img{display:block;border-radius:4px}"
    ".builder-image figcaption{font-size:.9em;color:#555;margin-top:.4em}"
    ".builder-icon-list,.builder-events{list-style:none;padding:0;margin:0}"
    ".builder-icon-list li{padding:.3em 0}.builder-icon{display:inline-block;width:1.5em}"
    ".builder-events li{padding:.6em 0;border-bottom:1px solid #ddd}"
    ".builder-events time{display:block;font-size:.9em;color:#555}"
)


def head_style(app, item: dict) -> str | None:
    """`<style>` for views of builder documents; nothing for other items."""
    if item.get("type") not in DOCUMENT_TYPES or not isinstance(item.get("id"), int):
        return None
    return f"<style>{PAGE_CSS}</style>" if is_indexed(app, item["id"]) else None
