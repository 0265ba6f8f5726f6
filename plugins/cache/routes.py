"""The cache plugin's route table: operator tools (cache/v1) and the optimisation service's callbacks."""

from __future__ import annotations

from host import Route

from . import admin, callbacks

V1 = "cache/v1"
V3 = "cache/v3"


def routes() -> list[Route]:
    operator = admin.require_manage_options
    service = callbacks.require_callback_secret
    return [
        Route(V1, "/toggle_crawler_state", "POST", admin.toggle_crawler_state, args=admin.ToggleCrawlerSchema,
              permission=operator),
        Route(V1, "/tool/check_ip", "GET", admin.check_ip, permission=operator),
        Route(V1, "/status", "GET", admin.cache_status, permission=operator),
        Route(V1, "/notify_img", "POST", callbacks.notify_img, args=callbacks.NotifyImgSchema, permission=service),
        Route(V1, "/notify_ccss", "POST", callbacks.notify_page_result("ccss"),
              args=callbacks.page_result_schema("ccss"), permission=service),
        Route(V1, "/notify_ucss", "POST", callbacks.notify_page_result("ucss"),
              args=callbacks.page_result_schema("ucss"), permission=service),
        Route(V1, "/notify_vpi", "POST", callbacks.notify_page_result("vpi"),
              args=callbacks.page_result_schema("vpi"), permission=service),
        Route(V1, "/check_img", "POST", callbacks.check_img, args=callbacks.CheckImgSchema, permission=service),
        Route(V3, "/ip_validate", "POST", callbacks.ip_validate, args=callbacks.IpValidateSchema, permission=service),
        Route(V3, "/wp_rest_echo", "POST", callbacks.wp_rest_echo, args=callbacks.EchoSchema, permission=service),
        Route(V3, "/ping", "POST", callbacks.ping, args=callbacks.PingSchema, permission=service),
        Route(V3, "/cdn_status", "POST", callbacks.cdn_status, args=callbacks.CdnStatusSchema, permission=service),
        Route(V3, "/err_domains", "POST", callbacks.err_domains, args=callbacks.ErrDomainsSchema, permission=service),
    ]
