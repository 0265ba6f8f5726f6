"""The newsletter/v1 route table: the public sign-up form, and the administrators' routes."""

from __future__ import annotations

from host import Route

from . import admin, signup
from .schemas import (DeleteArgs, FormCollectionArgs, FormSchema, ItemArgs, ListCollectionArgs, ListSchema,
                      SubscriberCollectionArgs, SubscriberSchema)

NAMESPACE = admin.NAMESPACE
ID = r"/(?P<id>[\d]+)"
ADMIN = "manage_options"


def routes() -> list[Route]:
    lists, forms, subscribers = "/lists", "/forms", "/subscribers"
    return [
        # Public, as the reference registers it (no permission callback): anyone may sign up.
        Route(NAMESPACE, "/form", "POST", signup.submit_form, expose_headers=signup.RESULT_HEADERS),
        Route(NAMESPACE, lists, "GET", admin.list_lists, args=ListCollectionArgs, schema=ListSchema,
              title="newsletter-list", capability=ADMIN),
        Route(NAMESPACE, lists, "POST", admin.create_list, args=ListSchema, capability=ADMIN),
        Route(NAMESPACE, lists + ID, "GET", admin.get_list, args=ItemArgs, schema=ListSchema,
              title="newsletter-list", capability=ADMIN),
        Route(NAMESPACE, lists + ID, ("POST", "PUT", "PATCH"), admin.update_list, args=ListSchema, partial_args=True,
              capability=ADMIN),
        Route(NAMESPACE, lists + ID, "DELETE", admin.delete_list, args=DeleteArgs, capability=ADMIN),
        Route(NAMESPACE, forms, "GET", admin.list_forms, args=FormCollectionArgs, schema=FormSchema,
              title="newsletter-form", capability=ADMIN),
        Route(NAMESPACE, forms, "POST", admin.create_form, args=FormSchema, capability=ADMIN),
        Route(NAMESPACE, forms + ID, "GET", admin.get_form, args=ItemArgs, schema=FormSchema,
              title="newsletter-form", capability=ADMIN),
        Route(NAMESPACE, forms + ID, ("POST", "PUT", "PATCH"), admin.update_form, args=FormSchema, partial_args=True,
              capability=ADMIN),
        Route(NAMESPACE, forms + ID, "DELETE", admin.delete_form, args=DeleteArgs, capability=ADMIN),
        Route(NAMESPACE, subscribers, "GET", admin.list_subscribers, args=SubscriberCollectionArgs,
              schema=SubscriberSchema, title="newsletter-subscriber", capability=ADMIN),
        Route(NAMESPACE, subscribers + ID, "GET", admin.get_subscriber, args=ItemArgs, schema=SubscriberSchema,
              title="newsletter-subscriber", capability=ADMIN),
        Route(NAMESPACE, subscribers + ID, "DELETE", admin.erase_subscriber, args=DeleteArgs, capability=ADMIN),
    ]
