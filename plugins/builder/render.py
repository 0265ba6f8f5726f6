"""Element trees to safe, accessible HTML, for `content.rendered` and the HTML views.

Every value from the tree is escaped, checked against a strict grammar (colours, sizes,
URLs, tag names) or cleaned by nh3; the finished document then passes nh3 once more with
the builder's own allow-list, so no script, event handler or foreign iframe can reach a
reader whoever wrote the document. Pages carry the kit's colours and fonts as CSS custom
properties on their wrapper. Unknown widget types render as nothing and are logged.
"""

from __future__ import annotations

import datetime
import html
import logging
from urllib.parse import parse_qs, urlsplit

import nh3
from host import theme
from markupsafe import Markup

from . import elements as tree
from .kit import css_variables, is_color, size_css, typography_css

log = logging.getLogger("sitehost.builder")

BUILDER_MODE = "builder"
HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
CONTAINER_TAGS = ("div", "section", "article", "aside", "header", "footer", "nav")
ALIGNS = ("left", "center", "right", "justify")
MAX_LIST_ITEMS = 100
MAX_EVENTS = 20
# Glyphs the common system fonts carry (no emoji font needed); decorative, so aria-hidden.
ICONS = {"check": "\u2713", "star": "\u2605", "calendar": "\u25A6", "map-marker": "\u2316", "phone": "\u260E",
         "envelope": "\u2709", "clock": "\u25F7", "arrow-right": "\u2192", "graduation-cap": "\u2605",
         "book": "\u270E", "bus": "\u2794", "users": "\u263A"}

INLINE_TAGS = {"b", "strong", "em", "i", "span", "br", "small", "mark", "u", "s", "sub", "sup"}
TEXT_TAGS = INLINE_TAGS | {"p", "a", "ul", "ol", "li", "blockquote", "h2", "h3", "h4", "h5", "h6", "code", "pre",
                           "table", "thead", "tbody", "tr", "td", "th", "caption", "hr", "abbr", "cite", "q"}
TEXT_ATTRIBUTES = {"*": {"class", "title", "lang", "dir", "style"}, "a": {"href", "target", "hreflang"},
                   "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan", "scope"}, "abbr": {"title"}}
# Inline styles written inside a text widget keep text styling only (no positioning, no url()).
TEXT_STYLE_PROPERTIES = {"color", "background-color", "font-weight", "font-style", "text-align",
                         "text-decoration", "font-size", "line-height"}
PAGE_TAGS = TEXT_TAGS | {"section", "div", "article", "aside", "header", "footer", "nav", "h1", "img", "figure",
                         "figcaption", "iframe", "time"}
PAGE_ATTRIBUTES = {
    "*": {"class", "id", "style", "title", "lang", "dir", "aria-hidden", "aria-label", "role"},
    "a": {"href", "target", "hreflang"}, "img": {"src", "alt", "loading", "width", "height"},
    "iframe": {"src", "title", "allow", "allowfullscreen", "loading", "referrerpolicy"},
    "time": {"datetime"}, "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan", "scope"},
}
URL_SCHEMES = {"http", "https", "mailto", "tel"}


def is_builder_item(item: dict) -> bool:
    meta = item.get("meta") or {}
    return meta.get("_builder_edit_mode") == BUILDER_MODE and bool(str(meta.get("_builder_data") or "").strip())


def safe_url(value) -> str | None:
    """An http(s)/mailto/tel URL or a site-relative path; anything else (javascript:, data:) is None."""
    if isinstance(value, dict):
        value = value.get("url")
    if not isinstance(value, str):
        return None
    url = value.strip()
    if not url or len(url) > 2000 or any(ord(character) < 32 for character in url):
        return None
    if url.startswith("/") and not url.startswith("//"):
        return url
    if url.startswith("#"):
        return url
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme in URL_SCHEMES and (scheme in ("mailto", "tel") or urlsplit(url).hostname):
        return url
    return None


def global_reference(settings: dict, key: str) -> str | None:
    """`var(--builder-color-ID)` when the setting points at a global colour (`__globals__`)."""
    globals_map = settings.get("__globals__")
    if not isinstance(globals_map, dict):
        return None
    reference = globals_map.get(key)
    if not isinstance(reference, str) or "?id=" not in reference:
        return None
    kind, _, entry = reference.partition("?id=")
    if not entry or len(entry) > 60 or not all(character.isalnum() or character == "_" for character in entry):
        return None
    if kind == "globals/colors":
        return f"var(--builder-color-{entry})"
    if kind == "globals/typography":
        return entry
    return None


def color_of(settings: dict, key: str) -> str | None:
    found = global_reference(settings, key)
    if found:
        return found
    value = settings.get(key)
    return value.strip() if is_color(value) else None


def box_css(value) -> str | None:
    """Padding `{unit, top, right, bottom, left}` as CSS, or None."""
    if not isinstance(value, dict):
        return None
    unit = value.get("unit", "px")
    if unit not in ("px", "em", "rem", "%", "vh", "vw"):
        return None
    sides = []
    for side in ("top", "right", "bottom", "left"):
        number = value.get(side, 0)
        try:
            number = float(number if number not in ("", None) else 0)
        except (TypeError, ValueError):
            return None
        if not -1000 <= number <= 1000:
            return None
        sides.append(f"{number:g}{unit}")
    return " ".join(sides)


def typography_style(settings: dict) -> list[str]:
    """font-* declarations from a global font reference or the element's own typography settings."""
    reference = global_reference(settings, "typography_typography")
    if reference:
        return [f"font-family:var(--builder-font-{reference}-family)",
                f"font-weight:var(--builder-font-{reference}-weight)"]
    css_names = {"family": "font-family", "size": "font-size", "weight": "font-weight", "line-height": "line-height",
                 "letter-spacing": "letter-spacing", "transform": "text-transform", "style": "font-style"}
    return [f"{css_names[name]}:{value}" for name, value in typography_css(settings)]


def element_attributes(element: dict, settings: dict, base_class: str, style: str) -> dict[str, str]:
    """The class, id and style of an element's wrapper (the template's `attributes` macro)."""
    classes = [base_class, f"builder-element-{element['id']}"]
    extra = settings.get("_css_classes")
    if isinstance(extra, str):
        classes.extend(name for name in extra.split()[:10]
                       if len(name) <= 60 and all(character.isalnum() or character in "-_" for character in name))
    element_id = settings.get("_element_id")
    if not (isinstance(element_id, str) and 0 < len(element_id) <= 60
            and all(character.isalnum() or character in "-_" for character in element_id)):
        element_id = ""
    return {"classes": " ".join(classes), "id": element_id, "style": style}


class Renderer:
    """Renders one document; `events` is a callable(count) -> list of event dicts (calendar enabled) or None."""

    def __init__(self, app, document_id, element_defaults: dict, events=None):
        self.app = app
        self.document_id = document_id
        self.element_defaults = element_defaults if isinstance(element_defaults, dict) else {}
        self.events = events
        self.widgets = set(tree.widget_types(app))
        self.rules: list[str] = []  # the same styles as a stylesheet, for pages whose CSP refuses inline styles
        self.current = ""
        self.html = theme.environment(app, __package__).get_template("builder_elements.html").module

    def styled(self, suffix: str, declarations: list[str], element_id: str | None = None) -> str:
        """The inline style of `declarations`, also kept as a rule of the document's stylesheet."""
        found = [declaration for declaration in declarations
                 if declaration and not any(character in declaration for character in "{}<>\\")]
        if not found:
            return ""
        self.rules.append(f".builder-element-{element_id or self.current}{suffix}{{{';'.join(found)}}}")
        return ";".join(found)

    def settings_for(self, element: dict, kind: str) -> dict:
        settings = element.get("settings") or {}
        if not isinstance(settings, dict):
            settings = {}
        defaults = self.element_defaults.get(kind)
        return {**defaults, **settings} if isinstance(defaults, dict) and defaults else settings

    def render(self, elements: list) -> Markup:
        return Markup("").join(self.element(element) for element in elements)

    def element(self, element: dict) -> Markup:
        el_type = element.get("elType")
        if el_type == "widget":
            return self.widget(element)
        settings = self.settings_for(element, el_type)
        inner = self.render(element.get("elements") or [])
        styles = [f"background-color:{color}" if (color := color_of(settings, "background_color")) else "",
                  f"padding:{padding}" if (padding := box_css(settings.get("padding"))) else "",
                  f"min-height:{height}" if (height := size_css(settings.get("min_height"))) else ""]
        self.current = element["id"]
        if el_type == "section":
            return self.html.section(element_attributes(element, settings, "builder-section", self.styled("", styles)),
                                     inner)
        if el_type == "column":
            size = settings.get("_column_size", 100)
            try:
                width = min(max(float(size), 1), 100)
            except (TypeError, ValueError):
                width = 100.0
            styles.append(f"flex-basis:calc({width:g}% - 2rem)")  # the row's gap is 2rem
            return self.html.block("div", element_attributes(element, settings, "builder-column", self.styled("", styles)),
                                   inner)
        tag = settings.get("html_tag") if settings.get("html_tag") in CONTAINER_TAGS else "div"
        direction = "row" if settings.get("flex_direction") == "row" else "column"
        styles.append(f"flex-direction:{direction}")
        if (gap := size_css(settings.get("gap"))) is not None:
            styles.append(f"gap:{gap}")
        return self.html.block(tag, element_attributes(element, settings, "builder-container", self.styled("", styles)),
                               inner)

    def widget(self, element: dict) -> Markup:
        kind = element.get("widgetType")
        if kind not in self.widgets:
            log.warning("builder document %s: widget type %r is not registered here; it renders as nothing",
                        self.document_id, kind)
            return Markup("")
        settings = self.settings_for(element, kind)
        self.current = element["id"]
        body = getattr(self, "widget_" + kind.replace("-", "_"))(settings)
        if not body:
            return Markup("")
        styles = []
        if settings.get("align") in ALIGNS:
            styles.append(f"text-align:{settings['align']}")
        return self.html.block("div", element_attributes(element, settings, "builder-widget builder-widget-" + kind,
                                                         self.styled("", styles, element["id"])), body)

    # --- widgets -----------------------------------------------------------------------------

    # Each returns the widget's HTML (a macro of templates/builder_elements.html), or "" to render nothing.

    def widget_heading(self, settings: dict) -> Markup | str:
        title = settings.get("title")
        if not isinstance(title, str) or not title.strip():
            return ""
        tag = settings.get("header_size") if settings.get("header_size") in HEADING_TAGS else "h2"
        text = Markup(nh3.clean(title, tags=INLINE_TAGS, attributes={}))
        styles = [f"color:{color}" if (color := color_of(settings, "title_color")) else ""] + typography_style(settings)
        return self.html.heading(tag, self.styled(" .builder-heading", styles), text, safe_url(settings.get("link")))

    def widget_text_editor(self, settings: dict) -> Markup | str:
        text = settings.get("editor")
        if not isinstance(text, str) or not text.strip():
            return ""
        cleaned = nh3.clean(text, tags=TEXT_TAGS, attributes=TEXT_ATTRIBUTES, url_schemes=URL_SCHEMES,
                            filter_style_properties=TEXT_STYLE_PROPERTIES)
        # Text without paragraphs or lists: each blank-line-separated part becomes a paragraph.
        wrap = not any(opening in cleaned for opening in ("<p", "<ul", "<ol"))
        parts = [Markup(part.strip()) for part in cleaned.split("\n\n") if part.strip()] if wrap else [Markup(cleaned)]
        styles = [f"color:{color}" if (color := color_of(settings, "text_color")) else ""] + typography_style(settings)
        return self.html.text(self.styled(" .builder-text", styles), parts, wrap)

    def widget_image(self, settings: dict) -> Markup | str:
        image = settings.get("image") if isinstance(settings.get("image"), dict) else {}
        src = safe_url(image.get("url"))
        if not src:
            return ""
        alt = image.get("alt") if isinstance(image.get("alt"), str) else settings.get("alt", "")
        alt = alt if isinstance(alt, str) else ""
        styles = [f"width:{width}" if (width := size_css(settings.get("width"))) else "", "max-width:100%",
                  "height:auto"]
        caption = settings.get("caption")
        caption = caption[:500] if isinstance(caption, str) and caption.strip() else ""
        return self.html.image(src, alt[:300], self.styled(" img", styles), safe_url(settings.get("link")), caption)

    def widget_button(self, settings: dict) -> Markup | str:
        text = settings.get("text")
        if not isinstance(text, str) or not text.strip():
            return ""
        styles = [f"background-color:{color}" if (color := color_of(settings, "button_background_color"))
                  else "background-color:var(--builder-color-accent, #2E8540)",
                  f"color:{color}" if (color := color_of(settings, "button_text_color")) else "color:#ffffff"]
        size = settings.get("size") if settings.get("size") in ("xs", "sm", "md", "lg", "xl") else "md"
        return self.html.button(size, safe_url(settings.get("link")), text.strip()[:200],
                                self.styled(" .builder-button", styles))

    def widget_spacer(self, settings: dict) -> Markup:
        height = size_css(settings.get("space")) or "50px"
        return self.html.spacer(self.styled(" .builder-spacer", [f"height:{height}"]))

    def widget_divider(self, settings: dict) -> Markup:
        styles = ["border:0",
                  f"border-top:{size_css(settings.get('weight')) or '1px'} solid "
                  f"{color_of(settings, 'color') or 'currentColor'}",
                  f"width:{width}" if (width := size_css(settings.get("width"))) else ""]
        return self.html.divider(self.styled(" .builder-divider", styles))

    def widget_video(self, settings: dict) -> Markup | str:
        source = video_embed_url(settings)
        if not source:
            return ""
        title = settings.get("title") if isinstance(settings.get("title"), str) and settings["title"].strip() \
            else "Embedded video"
        return self.html.video(source, title[:200])

    def widget_icon_list(self, settings: dict) -> Markup | str:
        entries = settings.get("icon_list")
        if not isinstance(entries, list):
            return ""
        color = color_of(settings, "text_color")
        items = []
        for entry in entries[:MAX_LIST_ITEMS]:
            if not isinstance(entry, dict) or not isinstance(entry.get("text"), str) or not entry["text"].strip():
                continue
            icon = entry.get("selected_icon")
            name = icon.get("value", "") if isinstance(icon, dict) else icon if isinstance(icon, str) else ""
            glyph = ICONS.get(str(name).split("fa-")[-1], "\u2022")
            items.append({"glyph": glyph, "text": entry["text"].strip()[:300], "url": safe_url(entry.get("link"))})
        if not items:
            return ""
        return self.html.icon_list(self.styled(" .builder-icon-list", [f"color:{color}" if color else ""]), items)

    def widget_cal_events_list(self, settings: dict) -> Markup | str:
        count = settings.get("posts_per_page", 5)
        count = count if isinstance(count, int) and not isinstance(count, bool) and 1 <= count <= MAX_EVENTS else 5
        found = self.events(count) if self.events is not None else None
        title = settings.get("title") if isinstance(settings.get("title"), str) else ""
        if found is None:
            return ""
        items = []
        for event in found[:count]:
            start = str(event.get("start_date") or "")
            all_day = event.get("all_day") is True
            items.append({"name": html.unescape(str(event.get("title") or "")), "url": safe_url(event.get("url")),
                          "moment": (start[:10] if all_day else start.replace(" ", "T")) if start else None,
                          "when": format_date(start, all_day)})
        return self.html.events(title.strip()[:200], items)


def format_date(value: str, all_day: bool = False) -> str:
    """`2026-03-14 10:00:00` -> `14 March 2026, 10:00`; an all-day event's without a time (as given
    when it cannot be read)."""
    try:
        moment = datetime.datetime.fromisoformat(value.replace(" ", "T"))
    except ValueError:
        return value
    day = f"{moment.day} {moment.strftime('%B %Y')}"
    return day if all_day else f"{day}, {moment.strftime('%H:%M')}"


def video_embed_url(settings: dict) -> str | None:
    """A privacy-friendly embed URL for a YouTube or Vimeo address; None for anything else."""
    kind = settings.get("video_type", "youtube")
    if kind == "vimeo":
        url = settings.get("vimeo_url")
        parts = urlsplit(url) if isinstance(url, str) and len(url) <= 500 else None
        if parts and parts.hostname in ("vimeo.com", "www.vimeo.com", "player.vimeo.com"):
            number = parts.path.rstrip("/").rsplit("/", 1)[-1]
            if number.isdigit() and len(number) <= 12:
                return f"https://player.vimeo.com/video/{number}"
        return None
    url = settings.get("youtube_url")
    parts = urlsplit(url) if isinstance(url, str) and len(url) <= 500 else None
    if not parts or parts.scheme not in ("http", "https"):
        return None
    video = None
    if parts.hostname in ("youtu.be",):
        video = parts.path.lstrip("/")
    elif parts.hostname in ("youtube.com", "www.youtube.com", "m.youtube.com", "www.youtube-nocookie.com"):
        if parts.path == "/watch":
            video = (parse_qs(parts.query).get("v") or [""])[0]
        elif parts.path.startswith(("/embed/", "/shorts/")):
            video = parts.path.split("/")[2]
    if video and len(video) == 11 and all(character.isalnum() or character in "-_" for character in video):
        return f"https://www.youtube-nocookie.com/embed/{video}"
    return None


def render_document(app, document_id, elements: list, kit, events=None) -> tuple[str, str]:
    """(HTML, CSS) of the whole document: its tree inside a wrapper carrying the kit's CSS custom
    properties, cleaned; the CSS holds the same styles for views whose CSP refuses inline styles."""
    renderer = Renderer(app, document_id, kit.element_defaults, events)
    body = renderer.render(elements)
    variables = css_variables(app, kit)
    wrapper = renderer.html.page(document_id, variables, body)
    html = nh3.clean(wrapper, tags=PAGE_TAGS, attributes=PAGE_ATTRIBUTES, url_schemes=URL_SCHEMES)
    css = "\n".join([f".builder-document-{int(document_id or 0)}{{{variables}}}"] + renderer.rules)
    return html, css
