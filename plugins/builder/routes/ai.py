"""builder-ai/v1: the AI feature probe, answered honestly (this site has no AI service).

The original answers `{success: true, data: {site_planner_connect: true}}` to tell a remote
site-planner service that the feature exists. sitehost talks to no AI or planner service
and sends nothing anywhere, so it says so: the probe answers 200 with
`site_planner_connect: false` and the reason, and the editor hides its AI features.
"""

from __future__ import annotations

from host import Route

from .common import AI_NAMESPACE, SITE


def permissions(request):
    return {"success": True, "data": {
        "site_planner_connect": False,
        "ai_available": False,
        "reason": "This site has no AI service: nothing is sent to a remote planner or model, so the editor's AI "
                  "features are off.",
    }}


def routes() -> list[Route]:
    return [Route(AI_NAMESPACE, "/permissions", "GET", permissions, capability=SITE)]
