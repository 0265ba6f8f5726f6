"""oEmbed's ability: the embed of one of this site's published posts or pages, for machines."""

from __future__ import annotations

from host import Ability, RestError

from .routes import NAMESPACE


def _signed_in(request, _input) -> bool:
    return request.user.can("read")


def _embed(request, value: dict) -> dict:
    # A REST call on purpose: the ability answers what this plugin's own embed route answers (its
    # argument checks, errors and status included), not a function of another plugin.
    answer = request.internal_get(f"/{NAMESPACE}/embed", url=value["url"], maxwidth=value.get("maxwidth", 600))
    if not answer.ok:
        error = answer.data if isinstance(answer.data, dict) else {}
        raise RestError(error.get("code", "oembed_invalid_url"), error.get("message", "Not Found"), answer.status)
    return answer.data


ABILITIES = [
    Ability("oembed/embed-post", "Embed a post", "The oEmbed data (title, author, HTML) of a published post or page "
            "of this site, given its address.", "content", _signed_in, _embed,
            input_schema={"type": "object", "properties": {
                "url": {"type": "string", "format": "uri", "maxLength": 2000},
                "maxwidth": {"type": "integer", "minimum": 200, "maximum": 2000}},
                "required": ["url"], "additionalProperties": False},
            output_schema={"type": "object", "properties": {
                "version": {"type": "string"}, "type": {"type": "string"}, "title": {"type": "string"},
                "html": {"type": "string"}, "provider_name": {"type": "string"}},
                "required": ["type", "html"]},
            readonly=True, idempotent=True),
]
