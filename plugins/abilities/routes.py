"""abilities/v1 routes: abilities, one ability, running it, and ability categories.

Listing needs a signed-in user (`read`), as in WordPress. Running an ability checks, in
order: the method (GET for read-only abilities, POST for the others), the input against the
ability's input schema, then the ability's own permission, and only then executes it; the
output is checked against its output schema, so a plugin's broken promise is a clear 500
rather than a malformed answer.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from host import Ability, AbilityCategory, RestError, RestResponse, Route, forbidden
from host.args import ParamError, sanitize_value, validate_value

from .schemas import (NAME_PART, AbilityArgs, AbilityCollectionArgs, AbilitySchema, CategoryArgs, CategoryCollectionArgs,
                      CategorySchema, RunArgs, json_schema_of)

NAMESPACE = "abilities/v1"
log = logging.getLogger("sitehost.abilities")


# --- permissions ------------------------------------------------------------------------------

# Route keywords of every route here: signed-in readers, refused in the real routes' words.
READ_ABILITIES = {"capability": "read", "refusal": ("rest_forbidden", "Sorry, you are not allowed to view abilities.")}


# --- shapes -----------------------------------------------------------------------------------

def _ability_data(request, ability: Ability) -> dict[str, Any]:
    namespace, _slash, name = ability.name.partition("/")
    self_url = request.url_for_route(f"/{NAMESPACE}/abilities/{namespace}/{name}")
    return {
        "name": ability.name,
        "label": ability.label,
        "description": ability.description,
        "category": ability.category,
        "input_schema": json_schema_of(ability.input_schema),
        "output_schema": json_schema_of(ability.output_schema),
        "meta": {"annotations": {"readonly": ability.readonly, "destructive": ability.destructive,
                                 "idempotent": ability.idempotent},
                 "show_in_rest": True},
        "_links": {
            "self": [{"href": self_url}],
            "collection": [{"href": request.url_for_route(f"/{NAMESPACE}/abilities")}],
            "wp:action-run": [{"href": self_url + "/run"}],
        },
    }


def _category_data(request, category: AbilityCategory) -> dict[str, Any]:
    return {
        "slug": category.slug,
        "label": category.label,
        "description": category.description,
        "meta": dict(category.meta),
        "_links": {
            "self": [{"href": request.url_for_route(f"/{NAMESPACE}/categories/{category.slug}")}],
            "collection": [{"href": request.url_for_route(f"/{NAMESPACE}/categories")}],
            "abilities": [{"href": request.url_for_route(f"/{NAMESPACE}/abilities") + f"?category={category.slug}"}],
        },
    }


def _page(request, items: list[dict]) -> RestResponse:
    per_page, page = request.params["per_page"], request.params["page"]
    total = len(items)
    if total and (page - 1) * per_page >= total:
        raise RestError("rest_invalid_page_number",
                        "The page number requested is larger than the number of pages available.", 400)
    return RestResponse.collection(request, items[(page - 1) * per_page: page * per_page], total, per_page, page)


# --- handlers ---------------------------------------------------------------------------------

def _abilities(app) -> list[Ability]:
    return [ability for ability, _owner in app.registry.abilities.values()]


def _find(request) -> Ability:
    name = f"{request.params['namespace']}/{request.params['ability']}"
    entry = request.app.registry.abilities.get(name)
    if entry is None:
        raise RestError("rest_ability_not_found", "Ability not found.", 404)
    return entry[0]


def list_abilities(request):
    category = request.params.get("category")
    chosen = [ability for ability in _abilities(request.app) if category is None or ability.category == category]
    return _page(request, [_ability_data(request, ability) for ability in chosen])


def get_ability(request):
    return _ability_data(request, _find(request))


def list_categories(request):
    categories = [category for category, _owner in request.app.registry.ability_categories.values()]
    return _page(request, [_category_data(request, category) for category in categories])


def get_category(request):
    entry = request.app.registry.ability_categories.get(request.params["slug"])
    if entry is None:
        raise RestError("rest_ability_category_not_found", "Ability category not found.", 404)
    return _category_data(request, entry[0])


def run_ability(request):
    ability = _find(request)
    wanted = "GET" if ability.readonly else "POST"
    if request.method != wanted:
        kind = "read-only" if ability.readonly else "regular"
        raise RestError("rest_ability_invalid_method",
                        f"Ability \"{ability.name}\" is {kind}: run it with {wanted}.", 405, headers={"Allow": wanted})
    value = _input_of(request, ability)
    if not ability.permission(request, value):
        raise forbidden(request.user, "rest_ability_cannot_execute", "Sorry, you are not allowed to execute this ability.")
    output = ability.execute(request, value)
    output_schema = json_schema_of(ability.output_schema)
    if output_schema:
        try:
            validate_value(output, output_schema, "output")
        except ParamError as error:
            log.error("ability %s broke its output schema: %s", ability.name, error.message)
            raise RestError("ability_invalid_output", f"Ability \"{ability.name}\" has invalid output.", 500) from None
    return output


def _input_of(request, ability: Ability) -> Any:
    schema = json_schema_of(ability.input_schema)
    value = request.params.get("input")
    if isinstance(value, str) and request.method == "GET" and schema.get("type") != "string":
        try:  # a query string carries the input as JSON text
            value = json.loads(value)
        except ValueError:
            raise RestError("ability_invalid_input", "input is not valid JSON.", 400, {"params": {"input": "JSON"}}) from None
    if not schema:
        if value is not None:
            raise RestError("ability_invalid_input", f"Ability \"{ability.name}\" takes no input.", 400)
        return None
    if value is None:
        if schema.get("required") or schema.get("type") not in ("object", None):
            raise RestError("ability_missing_input_schema", f"Ability \"{ability.name}\" requires input.", 400)
        value = {}
    try:
        validate_value(value, schema, "input")
    except ParamError as error:
        raise RestError("ability_invalid_input", error.message, 400, {"params": {"input": error.message}}) from None
    return sanitize_value(value, schema)


# --- the route table --------------------------------------------------------------------------

ABILITY_PATH = f"/abilities/(?P<namespace>{NAME_PART})/(?P<ability>{NAME_PART})"


def routes(app) -> list[Route]:
    return [
        Route(NAMESPACE, "/abilities", "GET", list_abilities, args=AbilityCollectionArgs, **READ_ABILITIES,
              schema=AbilitySchema, title="ability"),
        Route(NAMESPACE, ABILITY_PATH, "GET", get_ability, args=AbilityArgs, **READ_ABILITIES,
              schema=AbilitySchema, title="ability"),
        Route(NAMESPACE, ABILITY_PATH + "/run", ("GET", "POST"), run_ability, args=RunArgs,
              **READ_ABILITIES),
        Route(NAMESPACE, "/categories", "GET", list_categories, args=CategoryCollectionArgs,
              **READ_ABILITIES, schema=CategorySchema, title="ability-category"),
        Route(NAMESPACE, r"/categories/(?P<slug>[a-z0-9-]+)", "GET", get_category, args=CategoryArgs,
              **READ_ABILITIES, schema=CategorySchema, title="ability-category"),
    ]
