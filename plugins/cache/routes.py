"""The cache plugin's route table: operator tools (cache/v1) and the optimisation service's callbacks.

The callbacks' args are declared to document the payloads (documented_only): their handlers
check them and answer refusals in the service's envelope, as the real plugin, which declares none.
"""

from __future__ import annotations

from host import Route

from . import admin, callbacks
from .validation import documented_only

V1 = "cache/v1"
V3 = "cache/v3"


def routes() -> list[Route]:
    operator = {"capability": "manage_options"}
    service = callbacks.require_service_caller

    def callback(namespace: str, path: str, handler, schema) -> Route:
        return Route(namespace, path, "POST", handler, args=documented_only(schema), permission=service)

    return [
        Route(V1, "/toggle_crawler_state", "POST", admin.toggle_crawler_state, args=admin.ToggleCrawlerArgs,
              **operator),
        Route(V1, "/tool/check_ip", "GET", admin.check_ip, **operator),
        Route(V1, "/guest/sync", "GET", admin.guest_sync, **operator),
        Route(V1, "/status", "GET", admin.cache_status, **operator),
        callback(V1, "/notify_img", callbacks.notify_img, callbacks.NotifyImgSchema),
        callback(V1, "/notify_ccss", callbacks.notify_page_result("ccss"), callbacks.page_result_schema("ccss")),
        callback(V1, "/notify_ucss", callbacks.notify_page_result("ucss"), callbacks.page_result_schema("ucss")),
        callback(V1, "/notify_vpi", callbacks.notify_page_result("vpi"), callbacks.page_result_schema("vpi")),
        callback(V1, "/check_img", callbacks.check_img, callbacks.CheckImgSchema),
        callback(V3, "/ip_validate", callbacks.ip_validate, callbacks.IpValidateSchema),
        callback(V3, "/wp_rest_echo", callbacks.wp_rest_echo, callbacks.EchoSchema),
        callback(V3, "/ping", callbacks.ping, callbacks.PingSchema),
        callback(V3, "/cdn_status", callbacks.cdn_status, callbacks.CdnStatusSchema),
        callback(V3, "/err_domains", callbacks.err_domains, callbacks.ErrDomainsSchema),
    ]
