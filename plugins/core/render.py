"""Turning stored title/content/excerpt into `rendered` HTML, and filtering what users write.

A small, predictable subset of WordPress's display filters: texturize (curly quotes,
`&` as `&#038;`), wpautop (paragraphs and line breaks), the automatic 55-word excerpt,
then the `render_content` hook so plugins can rewrite the HTML. Input from users without
`unfiltered_html` goes through nh3, a maintained sanitizer, so no script reaches readers.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import re

import nh3

from host import Kept
from host.stash import StashKey
from host.text import html_to_text, leading_words, split_markup, tag_name

EXCERPT_MORE = " [&hellip;]"
RENDERED_CACHE_ENTRIES = 1000  # about 5 MB: a 2 KB body, its HTML and the key
DEFAULT_EXCERPT_WORDS = 55

_BARE_AMPERSAND = re.compile(r"&(?!#?[A-Za-z0-9]+;)")
_NO_TEXTURIZE = {"pre", "code", "kbd", "style", "script", "tt"}
_BLOCK = ("table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|"
          "blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|"
          "footer|nav|figure|figcaption|details|menu|summary|script|iframe|video|audio|object")
_BLOCK_START = re.compile(rf"^\s*</?(?:{_BLOCK})[\s/>]", re.IGNORECASE)

TITLE_TAGS = {"a", "abbr", "acronym", "b", "blockquote", "cite", "code", "del", "em", "i", "q", "s", "strike", "strong"}
CONTENT_TAGS = {
    "a", "abbr", "acronym", "address", "article", "aside", "audio", "b", "bdo", "big", "blockquote", "br",
    "caption", "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em",
    "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "img", "ins",
    "kbd", "li", "main", "mark", "nav", "ol", "p", "pre", "q", "s", "section", "small", "span", "strike",
    "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u",
    "ul", "var", "video", "source", "track",
}
CONTENT_ATTRIBUTES = {
    "*": {"class", "id", "title", "lang", "dir", "style"},
    "a": {"href", "target", "name", "hreflang"},
    "img": {"src", "alt", "width", "height", "srcset", "sizes", "loading"},
    "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan", "scope"},
    "time": {"datetime"}, "ol": {"start", "reversed", "type"},
    "audio": {"src", "controls"}, "video": {"src", "controls", "poster", "width", "height"},
    "source": {"src", "type"}, "track": {"src", "kind", "srclang", "label"},
    "blockquote": {"cite"}, "q": {"cite"}, "del": {"datetime"}, "ins": {"datetime"},
}

# CSS properties an inline `style` keeps for users without unfiltered_html: text,
# colour, box and list styling, as WordPress's safecss list, but nothing that positions an element
# (position, top/left/right/bottom, inset, z-index) so no author can lay a fixed overlay over the
# page, and no url()-bearing background-image, content or cursor.
STYLE_PROPERTIES = frozenset({
    "background-color", "border", "border-bottom", "border-collapse", "border-color", "border-left",
    "border-radius", "border-right", "border-spacing", "border-style", "border-top", "border-width",
    "caption-side", "clear", "color", "column-count", "column-gap", "columns", "direction", "float",
    "font", "font-family", "font-size", "font-style", "font-variant", "font-weight", "height",
    "letter-spacing", "line-height", "list-style", "list-style-position", "list-style-type", "margin",
    "margin-bottom", "margin-left", "margin-right", "margin-top", "max-height", "max-width",
    "min-height", "min-width", "padding", "padding-bottom", "padding-left", "padding-right",
    "padding-top", "text-align", "text-decoration", "text-indent", "text-transform", "vertical-align",
    "white-space", "width", "word-spacing", "writing-mode",
})


# --- filtering on input ------------------------------------------------------------------

def sanitize_title(raw: str) -> str:
    """Only a few inline tags survive in titles; other tags go, their text stays."""
    return nh3.clean(raw, tags=TITLE_TAGS, attributes={"a": {"href"}}, clean_content_tags=set(),
                     link_rel="noopener")


def sanitize_html(raw: str) -> str:
    """Post-level filtering: structural tags stay, scripts and event handlers are removed, and
    inline styles keep only the properties of STYLE_PROPERTIES."""
    return nh3.clean(raw, tags=CONTENT_TAGS, attributes=CONTENT_ATTRIBUTES, link_rel="noopener",
                     filter_style_properties=STYLE_PROPERTIES)


def plain_text(raw: str) -> str:
    """What a reader sees of `raw`, entities decoded, on one line (term names, alt text)."""
    return html_to_text(raw)


# --- display filters ---------------------------------------------------------------------

def texturize(text: str) -> str:
    """Curly quotes and dashes in text, never inside tags or code."""
    parts = split_markup(text)
    skipping: list[str] = []
    result = []
    for index, part in enumerate(parts):
        if index % 2:
            tag = tag_name(part)
            if tag:
                if tag in _NO_TEXTURIZE:
                    if part.startswith("</"):
                        if skipping and skipping[-1] == tag:
                            skipping.pop()
                    elif not part.endswith("/>"):
                        skipping.append(tag)
            result.append(part)
            continue
        if skipping or not part:
            result.append(part)
            continue
        result.append(_texturize_text(part))
    return "".join(result)


def _texturize_text(text: str) -> str:
    # Each step runs only when its character is there (a C scan): the quote patterns, which try
    # every position of the text, were most of a create's regular-expression time.
    if "&" in text:
        text = _BARE_AMPERSAND.sub("&#038;", text)
    text = text.replace("---", "&#8212;").replace(" -- ", " &#8212; ").replace("--", "&#8211;")
    text = text.replace("...", "&#8230;")
    if '"' in text:
        text = _curly_quotes(text, '"', "&#8220;", "&#8221;")
    if "'" in text:
        text = _curly_quotes(text, "'", "&#8216;", "&#8217;")
    return text


def _curly_quotes(text: str, quote: str, opening: str, closing: str) -> str:
    r"""Each `quote` as `opening` where it starts the text or follows white space or ( [ {, else `closing`.

    What `re.sub(r'(^|[\s(\[{])"', ...)` then a replace of the rest made of it, without trying the
    pattern at every position: `\s` of a str pattern is `str.isspace`, and a quote never follows
    a matched character that the pattern consumed (none of them is a quote).
    """
    pieces = text.split(quote)
    result = [pieces[0]]
    for index in range(1, len(pieces)):
        before = pieces[index - 1]
        if before:
            last = before[-1]
            opens = last in "([{" or last.isspace()
        else:
            opens = index == 1  # at the start of the text; later, right after another quote
        result.append(opening if opens else closing)
        result.append(pieces[index])
    return "".join(result)


def autop(text: str) -> str:
    """Paragraphs from blank lines, <br /> from single newlines; block elements are not wrapped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return ""
    blocks = [block.strip() for block in re.split(r"\n\s*\n", text) if block.strip()]
    output = []
    for block in blocks:
        if _BLOCK_START.match(block):
            output.append(block)
        else:
            output.append("<p>" + _line_breaks(block) + "</p>")
    return "\n".join(output) + "\n"


def _line_breaks(block: str) -> str:
    """Each newline (and the white space around it) becomes `<br />` and a newline, unless one is there."""
    lines = block.split("\n")
    joined = [lines[0].rstrip()]
    for line in lines[1:]:
        joined.append("\n" if joined[-1].endswith("<br />") else "<br />\n")
        joined.append(line.strip())
    return "".join(joined)


@functools.lru_cache(maxsize=4096)
def render_title(raw: str) -> str:
    """Texturized title; a pure function of the text, so memoised (every list page renders ten)."""
    return texturize(raw.strip())


def rendered_cache(app) -> Kept:
    """Rendered HTML by item, one per app (rendering is most of a list page's Python time).

    An entry is kept at the version of what it was rendered from: the item's `modified` time,
    the raw text itself and the plugins' contributions, so an edit through the API or a direct
    write to the table never serves stale HTML. A `render_content` implementation whose output
    depends on anything else adds it to the key, or opts the item out, through the
    `render_cache_key` hook.
    """
    return app.kept("core.rendered", RENDERED_CACHE_ENTRIES)


def _item_key(item: dict) -> tuple:
    return item.get("id"), item.get("type")


def render_cache_contributions(app, item: dict) -> tuple | None:
    """What plugins add to an item's render cache key (`render_cache_key` hook); None: do not cache."""
    caller = app.hook.render_cache_key
    if not caller.get_hookimpls():
        return ()
    parts = caller(app=app, item=item)
    if any(part is False for part in parts):
        return None
    return tuple(parts)


def render_content(app, item: dict, raw: str) -> str:
    """Stored content through the display filters and the `render_content` hook (cached)."""
    return _cached_content(app, item, raw, render_cache_contributions(app, item))


def _cached_content(app, item: dict, raw: str, extra: tuple | None) -> str:
    """`render_content` with the item's render cache contributions already asked (once per rendering)."""
    if extra is None:
        return _render_content(app, item, raw)
    return rendered_cache(app).get_or_build(("content", *_item_key(item)), (item.get("modified"), raw, extra),
                                            lambda: _render_content(app, item, raw))


def _render_content(app, item: dict, raw: str) -> str:
    text = without_block_comments(raw)
    rendered = {"html": autop(texturize(text))}
    app.hook.render_content(app=app, item=item, content=rendered)
    return rendered["html"]


def render_excerpt(app, item: dict, excerpt: str, content: str, words: int | None = None) -> str:
    """The written excerpt as paragraphs, or the first `words` words of the content (cached)."""
    return _cached_excerpt(app, item, excerpt, content, words, render_cache_contributions(app, item))


def _cached_excerpt(app, item: dict, excerpt: str, content: str, words: int | None, extra: tuple | None) -> str:
    """`render_excerpt` with the item's render cache contributions already asked (once per rendering)."""
    if extra is None:
        return _render_excerpt(app, item, excerpt, content, words, extra)
    return rendered_cache(app).get_or_build(("excerpt", *_item_key(item), words),
                                            (item.get("modified"), excerpt, content, extra),
                                            lambda: _render_excerpt(app, item, excerpt, content, words, extra))


# --- renderings stored per row ----------------------------------------------------

# Bump when the display filters above change what they make of the same text: every stored
# rendering then misses once and is rebuilt (the renderers' own source is hashed in too).
RENDER_FORMAT = 1
_STORABLE = (str, int, float, bool, type(None), bytes)
RENDERERS = StashKey[str]("core.renderers_fingerprint")


def renderers_fingerprint(app) -> str:
    """What else a stored rendering was made by: this module's and host.text's source, and each
    `render_content` / `render_cache_key` implementation's plugin, module source and settings.

    The in-memory caches die with the process, the stored renderings do not: a plugin enabled,
    disabled, upgraded or configured differently must not find the HTML its predecessor made.
    Computed once per app (the plugin set is final before the first request).
    """
    def build() -> str:
        digest = hashlib.blake2b(digest_size=16)
        sources = {__file__, inspect.getsourcefile(html_to_text) or ""}
        parts = []
        for hook in (app.hook.render_content, app.hook.render_cache_key):
            for impl in hook.get_hookimpls():
                parts.append((hook.name, impl.plugin_name, repr(app.settings.plugins.get(impl.plugin_name))))
                sources.add(inspect.getsourcefile(impl.function) or impl.plugin_name)
        digest.update(repr((RENDER_FORMAT, sorted(parts))).encode())
        for source in sorted(sources):
            try:
                with open(source, "rb") as file:
                    digest.update(file.read())
            except OSError:  # no source to hash: nothing stored is trusted (rendered afresh, then kept)
                digest.update(repr(id(app)).encode())
        return digest.hexdigest()

    return app.stash.setdefault_by(RENDERERS, build)


def _storable(value) -> bool:
    """A contribution whose repr is the same in every process (no hash-ordered sets, no object ids)."""
    if isinstance(value, (tuple, list)):
        return all(_storable(part) for part in value)
    return isinstance(value, _STORABLE)


def rendering_digest(app, item: dict, extra: tuple | None) -> str | None:
    """The key of an item's stored rendering: its id, type, modified time, raw content and excerpt,
    what plugins add to its render cache key, and the renderers themselves; None: not storable."""
    if extra is None or not _storable(extra):
        return None
    modified = item.get("modified")
    content = item["content"].encode("utf-8", "surrogatepass")
    excerpt = item["excerpt"].encode("utf-8", "surrogatepass")
    # The texts' lengths go in the header, so no split of the bytes that follow reads as another.
    header = (renderers_fingerprint(app), item["id"], item["type"], modified.isoformat() if modified else None,
              extra, len(content), len(excerpt))
    digest = hashlib.blake2b(repr(header).encode("utf-8", "surrogatepass"), digest_size=20)
    digest.update(content)
    digest.update(excerpt)
    return digest.hexdigest()


def render_item(app, item: dict, excerpt_length: int | None = None) -> tuple[str, str, tuple | None]:
    """(content, excerpt, what to store or None) of an item's stored text, rendered.

    An item read with its stored rendering (`_rendering` set by store.get_item) is answered
    from it while its digest matches the row and the render cache contributions as they are now;
    otherwise it is rendered and (digest, content, excerpt) comes back for the caller to store.
    Password-protected items and custom excerpt lengths are always rendered afresh.
    """
    # The plugins' contributions are asked once here (a hook call), not by each step below.
    extra = render_cache_contributions(app, item)
    if "_rendering" not in item or excerpt_length is not None or item.get("password"):
        return (_cached_content(app, item, item["content"], extra),
                _cached_excerpt(app, item, item["excerpt"], item["content"], excerpt_length, extra), None)
    digest = rendering_digest(app, item, extra)
    stored = item["_rendering"]
    if digest is not None and stored is not None and stored[0] == digest:
        return stored[1], stored[2], None
    content = _cached_content(app, item, item["content"], extra)
    excerpt = _cached_excerpt(app, item, item["excerpt"], item["content"], None, extra)
    return content, excerpt, ((digest, content, excerpt) if digest is not None else None)


def _render_excerpt(app, item: dict, excerpt: str, content: str, words: int | None, extra: tuple | None) -> str:
    if excerpt.strip():
        return autop(texturize(excerpt))
    if not content.strip():
        return ""
    limit = DEFAULT_EXCERPT_WORDS if words is None else max(words, 0)
    # Only as much of the rendered content is read as the excerpt's words need.
    text, more = leading_words(_cached_content(app, item, content, extra), limit, keep_entities=True)
    if more:
        text += EXCERPT_MORE
    return autop(text) if text else ""


def without_block_comments(raw: str) -> str:
    """Content without its block delimiters (`<!-- wp:paragraph -->`) and the white space after them."""
    if "<!--" not in raw:
        return raw
    parts = split_markup(raw)
    kept = [parts[0]]
    for index in range(1, len(parts), 2):
        tag, following = parts[index], parts[index + 1]
        if tag.startswith("<!--") and tag[4:].lstrip().startswith(("wp:", "/wp:")):
            kept.append(following.lstrip())
        else:
            kept.extend((tag, following))
    return "".join(kept)


def block_version(raw: str) -> int:
    return 1 if "<!-- wp:" in raw else 0
