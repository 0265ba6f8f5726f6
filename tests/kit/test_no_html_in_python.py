"""No HTML is built in Python: a .py file under host/ or plugins/ holds no HTML tag in a string literal.

Pages, fragments and notices live in Jinja2 templates (autoescape on) in their package's templates/ folder.
The scan reads every string literal (f-string parts included, docstrings left out) with the `ast` module and
looks for an opening or closing tag of an HTML element. What truly must stay is listed below, with why.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database

ROOT = Path(__file__).resolve().parents[2]
HTML_ELEMENTS = (
    "a abbr address article aside audio b blockquote body br button canvas caption cite code col dd del details dfn "
    "div dl dt em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hr html i iframe img "
    "input ins kbd label legend li link main mark meta nav noscript object ol optgroup option output p picture pre "
    "progress q s samp script section select small source span strong style sub summary sup svg table tbody td "
    "template textarea tfoot th thead time title tr track u ul var video").split()
# `<p`, `</p`, `<a href`, `<br />`; not a regex's named group `(?P<title>`.
TAG = re.compile(r"(?<!\?P)</?(?:%s)(?=[\s>/])" % "|".join(HTML_ELEMENTS), re.IGNORECASE)

# File -> why its HTML literals must stay in Python.
ALLOWED = {
    # Content filters: they turn stored text into WordPress's `rendered` HTML byte for byte (wpautop's
    # paragraphs and line breaks, a comment's paragraphs, an attachment's link), by rewriting markup.
    "plugins/core/render.py": "wpautop: inserts <p> and <br /> into content as WordPress does",
    "plugins/core/comments.py": "a comment's text as WordPress's paragraphs (rendered)",
    "plugins/core/media.py": "an attachment's rendered description, WordPress's shape",
    "plugins/forms/pages.py": "the form shortcode filter: finds a shortcode alone in its <p> and unwraps it",
    # Content, not page HTML: what the demo site and a new form start with, stored and edited as content.
    "plugins/builder/demo.py": "the demo site's post bodies (content rows)",
    "plugins/forms/demo.py": "the demo site's form descriptions (content rows)",
    "plugins/lms/demo.py": "the demo site's course and lesson bodies (content rows)",
    "plugins/forms/properties.py": "a new form's default template, the form markup an editor edits",
    "host/scaffold.py": "the generator writes a new plugin's files: its page template and its tests' expected HTML",
    # Prose naming an element in a schema description (`the <title> element`), not markup.
    "plugins/block_editor/routes.py": "field descriptions that name the HTML elements a URL's details come from",
}


def html_literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal in `path` that holds an HTML tag, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                  and TAG.search(node.value))


def test_no_python_file_builds_html():
    found = []
    for folder in ("host", "plugins"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative not in ALLOWED:
                found.extend(f"{relative}:{line}: {text[:80]!r}" for line, text in html_literals(path))
    assert not found, "HTML built in Python (move it into a template of the package's templates/ folder):\n" + \
        "\n".join(found)


def test_every_allowed_file_still_needs_its_place():
    """An entry whose file no longer holds HTML (or is gone) leaves the list, so the list stays true."""
    stale = [relative for relative in ALLOWED
             if not (ROOT / relative).exists() or not html_literals(ROOT / relative)]
    assert not stale, f"remove from ALLOWED: {stale}"


def test_the_scan_finds_tags_and_ignores_what_is_not_markup(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""A docstring may say <p> freely."""\n'
                      'NOTE = f"<p>{1}</p>"\n'
                      'CLOSE = "</div>"\n'
                      'PATTERN = r"^(?P<title>.+)$"\n'
                      'ROUTE = "/posts/<id:int>"\n'
                      'COMPARE = "a < b and c <= d"\n', encoding="utf-8")
    assert html_literals(sample) == [(2, "</p>"), (2, "<p>"), (3, "</div>")]
