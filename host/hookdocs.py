"""Render every hook's docstring from host/hookspecs.py into docs/hooks.md.

    python -m host.hookdocs            # rewrite docs/hooks.md
    python -m host.hookdocs --check    # exit 1 when docs/hooks.md is out of date

The hookspecs are the single place a hook's contract is written; this page is generated
from them so that the reference and the code cannot drift apart (a test checks it).
"""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from . import hookspecs

DOCS_FILE = Path(__file__).resolve().parent.parent / "docs" / "hooks.md"
_SECTION = re.compile(r"^# --- (?P<title>.+?) -+\s*$")


@dataclass
class HookDoc:
    """One hook as the reference shows it."""

    name: str
    arguments: list[str]
    docstring: str
    section: str
    firstresult: bool
    historic: bool

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.arguments)})"


def collect_hooks(module=hookspecs) -> list[HookDoc]:
    """Every hookspec of `module` in source order, with the section banner above it."""
    source_lines = inspect.getsource(module).splitlines()
    sections: list[tuple[int, str]] = []
    for number, text in enumerate(source_lines, start=1):
        found = _SECTION.match(text)
        if found:
            sections.append((number, found.group("title").strip()))
    hooks = []
    for name, function in inspect.getmembers(module, inspect.isfunction):
        options = getattr(function, "sitehost_spec", None)
        if options is None:
            continue
        line = inspect.getsourcelines(function)[1]
        section = ""
        for start, title in sections:
            if start <= line:
                section = title
        hooks.append(HookDoc(
            name=name,
            arguments=list(inspect.signature(function).parameters),
            docstring=inspect.getdoc(function) or "",
            section=section,
            firstresult=bool(options.get("firstresult")),
            historic=bool(options.get("historic")),
        ))
    hooks.sort(key=lambda hook: inspect.getsourcelines(getattr(module, hook.name))[1])
    return hooks


def render(hooks: list[HookDoc] | None = None) -> str:
    """The whole Markdown page."""
    hooks = collect_hooks() if hooks is None else hooks
    lines = [
        "# Hook reference",
        "",
        "<!-- Generated from host/hookspecs.py by `python -m host.hookdocs`; do not edit by hand. -->",
        "",
        "Implement a hook with a function of the same name marked `@hookimpl` (from `host`) in your",
        "plugin module. Accept only the arguments you use, and never give them default values (pluggy",
        "does not pass arguments that have defaults). Hooks marked *firstresult* stop at the first",
        "implementation that returns something other than None; the others call every implementation.",
        "See [the plugin guide](plugin-guide.md) for worked examples.",
        "",
    ]
    current_section = None
    index_position = len(lines)
    index: list[str] = []
    for hook in hooks:
        if hook.section != current_section:
            current_section = hook.section
            title = current_section[:1].upper() + current_section[1:]
            lines += [f"## {title}", ""]
            index.append(f"- {title}: " + ", ".join(
                f"[`{other.name}`](#{other.name})" for other in hooks if other.section == hook.section))
        kinds = [kind for kind, flag in (("firstresult", hook.firstresult), ("historic", hook.historic)) if flag]
        lines += [f"### {hook.name}", "", f"`{hook.signature}`" + (f" ({', '.join(kinds)})" if kinds else ""), ""]
        lines += [_markdown_paragraphs(hook.docstring), ""]
    lines[index_position:index_position] = index + [""]
    return "\n".join(lines).rstrip() + "\n"


def _markdown_paragraphs(docstring: str) -> str:
    """Docstring lines starting with `When:`, `Arguments:` ... become their own paragraphs."""
    out: list[str] = []
    for line in docstring.splitlines():
        label = re.match(r"^(When|Arguments|Returns|firstresult|historic):", line)
        if label and out and out[-1] != "":
            out.append("")
        if label:
            line = f"**{label.group(1)}**" + line[len(label.group(1)):]
        out.append(line)
    return "\n".join(out)


def write(path: Path = DOCS_FILE) -> bool:
    """Write the page; True when it changed."""
    text = render()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--check" in argv:
        current = DOCS_FILE.read_text(encoding="utf-8") if DOCS_FILE.exists() else ""
        if current != render():
            print(f"{DOCS_FILE} is out of date; run: python -m host.hookdocs", file=sys.stderr)
            return 1
        print(f"{DOCS_FILE} is up to date")
        return 0
    changed = write()
    print(f"{'wrote' if changed else 'unchanged:'} {DOCS_FILE}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
