"""Markup scanning that runs in linear time, whatever the input.

Patterns such as `<[^>]*>` or `<!--.*?-->` backtrack: on a string of many `<` with no `>`
every start position scans to the end, so a 1 MB field costs minutes. These
scanners move forward with `str.find` only and never look at a character twice after a
failed search, so their cost is proportional to the text.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

# Elements whose text is never shown to a reader (the HTML parsing spec's raw text elements,
# plus template and noscript): nothing inside them may reach excerpts or search.
HIDDEN_ELEMENTS = frozenset({"script", "style", "template", "noscript", "iframe", "object", "textarea", "title"})
# Elements that separate words when the markup is read as text ("a</p><p>b" is two words).
_BLOCK_ELEMENTS = frozenset({
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot",
    "th", "thead", "tr", "ul", "img", "audio", "video",
})
# Punctuation that follows a word without a space ("Friday." not "Friday .").
_CLOSING_PUNCTUATION = frozenset(".,;:!?)]}»”’…")
_SPACE_BEFORE_CLOSING = re.compile(" (?=[" + re.escape("".join(sorted(_CLOSING_PUNCTUATION))) + "])")


def split_markup(text: str) -> list[str]:
    """Text and markup in turn, as `re.split` with one group gives: [text, tag, text, ..., text].

    A tag runs from `<` to the next `>`; a comment from `<!--` to the next `-->` (so `>`
    inside a comment does not end it). A `<` with no `>` after it is text.
    """
    parts: list[str] = []
    text_start = 0
    position = 0
    comment_end_exists = True  # once "-->" was not found after some point, it is not found later either
    length = len(text)
    while position < length:
        opening = text.find("<", position)
        if opening < 0:
            break
        closing = -1
        if comment_end_exists and text.startswith("<!--", opening):
            comment_end = text.find("-->", opening + 4)
            if comment_end < 0:
                comment_end_exists = False
            else:
                closing = comment_end + 2
        if closing < 0:
            closing = text.find(">", opening + 1)
            if closing < 0:
                break  # no `>` anywhere after: the rest is text
        parts.append(text[text_start:opening])
        parts.append(text[opening:closing + 1])
        text_start = position = closing + 1
    parts.append(text[text_start:])
    return parts


def tag_name(tag: str) -> str:
    """`div` for `<div class=x>` and `</DIV>`; "" for comments and declarations."""
    # Texts repeat a few short tags (<p>, </p>, <strong>) many times over, and every text that is
    # rendered, excerpted or indexed asks for their names: remember those, a dict lookup instead
    # of a Python step per character. Bounded: emptied when full (under the GIL, a race between
    # two threads costs a scan again, never a wrong name).
    name = _TAG_NAMES.get(tag)
    if name is None:
        name = _scan_tag_name(tag)
        if len(tag) <= _KEPT_TAG_LENGTH:
            if len(_TAG_NAMES) >= _KEPT_TAGS:
                _TAG_NAMES.clear()
            _TAG_NAMES[tag] = name
    return name


_KEPT_TAGS = 1024
_KEPT_TAG_LENGTH = 64
_TAG_NAMES: dict[str, str] = {}


def _scan_tag_name(tag: str) -> str:
    start = 2 if tag.startswith("</") else 1
    while start < len(tag) and tag[start] in " \t\n\r\f":
        start += 1
    end = start
    while end < len(tag) and (tag[end].isascii() and tag[end].isalnum()):
        end += 1
    return tag[start:end].lower()


def strip_tags(text: str) -> str:
    """The text without its tags and comments (entities are left as they are)."""
    return "".join(split_markup(text)[0::2])


def html_to_text(markup: str, keep_entities: bool = False) -> str:
    """What a reader sees of `markup`, as one line of words.

    Tags and comments go; the content of script, style and the other hidden elements goes;
    block elements separate words; white space collapses; no space is left before closing
    punctuation. Entities are decoded unless `keep_entities` (for text that is put back into HTML).
    """
    return _join_words(_visible_runs(markup, keep_entities))


def index_text(markup: str) -> str:
    """The words of `markup` that `html_to_text` finds, for a full-text index to tokenize.

    A tokenizer splits on white space and punctuation itself, so this skips `html_to_text`'s
    last step (collapsing white space, closing punctuation up to its word) and, for text
    without markup or entities (most titles), all of it: the tokens are the same, which a
    contentless index relies on when it deletes a row indexed with either (the
    search index's update was a tenth of a create's time).
    """
    if "<" not in markup and "&" not in markup:
        return markup
    return _visible_runs(markup, False)


def leading_words(markup: str, limit: int, keep_entities: bool = False) -> tuple[str, bool]:
    """(the first `limit` words of `html_to_text(markup, keep_entities)`, whether more follow).

    The same answer as splitting the whole text on spaces, but the markup is read only until
    word `limit + 1` has begun: an excerpt needs 55 words of a post that may have thousands.
    Words already followed by another one cannot change as more text is read (text read later
    only extends the last word, and punctuation joins the word before it), so the first
    `limit` words are final once there are more than `limit`.
    """
    runs: list[str] = []
    read = 0
    check_at = 8 * (limit + 1)  # about the characters of limit + 1 words; doubled after each look
    for run in _runs(split_markup(markup), keep_entities):
        runs.append(run)
        read += len(run)
        if read >= check_at:
            words = _join_words("".join(runs)).split(" ")
            if len(words) > limit:
                return " ".join(words[:limit]), True
            check_at = 2 * read
    words = _join_words("".join(runs)).split(" ")
    return " ".join(words[:limit]), len(words) > limit


def _visible_runs(markup: str, keep_entities: bool) -> str:
    return "".join(_runs(split_markup(markup), keep_entities))


def _runs(parts: list[str], keep_entities: bool):
    """The visible text of `split_markup`'s parts, a run at a time (" " for a block element's tag)."""
    hidden: str | None = None
    for index, part in enumerate(parts):
        if index % 2:
            name = tag_name(part)
            if hidden is not None:
                if part.startswith("</") and name == hidden:
                    hidden = None
                continue
            if name in HIDDEN_ELEMENTS and not part.startswith("</") and not part.endswith("/>"):
                hidden = name
            elif name in _BLOCK_ELEMENTS:
                yield " "
            continue
        if hidden is None and part:
            yield part if keep_entities or "&" not in part else html.unescape(part)


def _join_words(text: str) -> str:
    # Words joined by single spaces, then the space before each word that starts with closing
    # punctuation dropped: two C passes instead of a Python loop over every word (an excerpt
    # reads the whole rendered content, so this ran once per word of every post rendered).
    return _SPACE_BEFORE_CLOSING.sub("", " ".join(text.split()))


# Elements whose content goes with their tags when text is cleaned (the reference's wp_strip_all_tags).
_DROPPED_WITH_CONTENT = frozenset({"script", "style"})
_CONTROL_CHARACTERS = dict.fromkeys([*range(32), 127])


def _without_markup(value: str) -> str:
    """`value` without tags (script and style with their content), a `<` that starts no tag as `&lt;`."""
    if "<" not in value:
        return value
    kept, hidden = [], ""
    for index, part in enumerate(split_markup(value)):
        if index % 2 == 0:
            if not hidden:
                kept.append(part)
            continue
        name = tag_name(part)
        if hidden:
            hidden = "" if part.startswith("</") and name == hidden else hidden
        elif name in _DROPPED_WITH_CONTENT and not part.startswith("</"):
            hidden = name
    return "".join(kept).replace("<", "&lt;")


def sanitize_text_field(value: str) -> str:
    """One line of plain text from what an outsider typed, as the reference's sanitize_text_field.

    Tags go (script and style with their content), a `<` that starts no tag becomes `&lt;` so that
    no client can later read markup in it, control characters go and white space collapses.
    Names and other one-line fields written by visitors are shown by other people's pages.
    """
    value = _without_markup(value)
    if value.isprintable() and "  " not in value and value == value.strip():
        return value  # most names: nothing to do
    return " ".join(value.split()).translate(_CONTROL_CHARACTERS)


def sanitize_textarea_field(value: str) -> str:
    """Plain text of several lines (a review, a message), as the reference's sanitize_textarea_field:
    as sanitize_text_field, but line breaks stay."""
    value = _without_markup(value)
    if value.isprintable() and value == value.strip():
        return value
    lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(" ".join(line.split()).translate(_CONTROL_CHARACTERS) for line in lines).strip()


# What the reference's esc_url_raw keeps of a URL (any non-ASCII character too).
_URL_PUNCTUATION = frozenset("-~+_.?#=!&;,/:%@$|*'()[]")
_URL_SCHEME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")


def _without_encoded_breaks(url: str) -> str:
    """`url` without %0d / %0a, also those that removing one would form ("%0%0aa"), in one pass."""
    kept: list[str] = []
    for character in url:
        kept.append(character)
        if len(kept) >= 3 and kept[-3] == "%" and kept[-2] == "0" and kept[-1] in "aAdD":
            del kept[-3:]
    return "".join(kept)


def sanitize_url(value: str, schemes: frozenset[str] | tuple[str, ...] = ("http", "https")) -> str:
    """`value` as a URL safe to link to, or "" when its scheme is not in `schemes`.

    As the reference's esc_url_raw with an allowed-protocols list: tags go, spaces become %20,
    characters a URL cannot hold go (so `java\\tscript:` cannot hide its scheme), a value without
    a scheme gets `http://` unless it is relative (`/`, `#`, `?`), and any other scheme
    (`javascript:`, `data:`, `vbscript:`) gives "".
    """
    url = strip_tags(value).strip().replace(" ", "%20")
    url = "".join(character for character in url if character.isascii() and character.isalnum()
                  or character in _URL_PUNCTUATION or not character.isascii() and character.isprintable())
    if not url:
        return ""
    if not url.lower().startswith("mailto:") and "%0" in url:
        url = _without_encoded_breaks(url)
    url = url.replace(";//", "://")
    if not url:
        return ""
    scheme, colon, _ = url.partition(":")
    if not colon:
        return url if url[0] in "/#?" else "http://" + url
    if any(character in scheme for character in "/?#"):
        return url  # a colon in a relative path or query, not a scheme
    scheme = scheme.lower()
    if scheme and set(scheme) <= _URL_SCHEME_CHARACTERS and scheme in schemes:
        return url
    return ""


class _StyleAttributeRemover(HTMLParser):
    """Copies markup through unchanged, except that start tags lose their `style` attribute."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.out: list[str] = []

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], closing: str) -> None:
        original = self.get_starttag_text() or ""
        if not any(name == "style" for name, _value in attrs):
            self.out.append(original)
            return
        kept = "".join(f' {name}="{html.escape(value, quote=True)}"' if value is not None else f" {name}"
                       for name, value in attrs if name != "style")
        self.out.append(f"<{tag}{kept}{closing}>")

    def handle_starttag(self, tag, attrs):
        self._tag(tag, attrs, "")

    def handle_startendtag(self, tag, attrs):
        self._tag(tag, attrs, " /")

    def handle_endtag(self, tag):
        self.out.append(f"</{tag}>")

    def handle_data(self, data):
        self.out.append(data)

    def handle_entityref(self, name):
        self.out.append(f"&{name};")

    def handle_charref(self, name):
        self.out.append(f"&#{name};")

    def handle_comment(self, data):
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl):
        self.out.append(f"<!{decl}>")

    def handle_pi(self, data):
        self.out.append(f"<?{data}>")

    def unknown_decl(self, data):
        self.out.append(f"<![{data}]>")


def without_style_attributes(markup: str) -> str:
    """`markup` without inline `style` attributes, for pages whose CSP refuses them.

    A browser under `style-src 'self'` ignores each one and logs an error; the styles such a page
    needs come from its stylesheets (the builder serves each document's as a file).
    """
    if "style" not in markup:
        return markup
    remover = _StyleAttributeRemover()
    remover.feed(markup)
    remover.close()
    if remover.rawdata:  # an unfinished tag at the end: kept as text, as a browser would show it
        remover.out.append(remover.rawdata)
    return "".join(remover.out)
