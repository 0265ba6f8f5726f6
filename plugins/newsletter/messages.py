"""Every message key a sign-up form answers with: its type and our default text.

The keys are the reference's (§12) plus `rate_limited` and `unsubscribe_requested`; a form stores
a text for each, which administrators edit through `newsletter/v1/forms`. The defaults are ours,
written for families.

A form's answer must not tell who is on a list, so a sign-up always answers `subscribed` and an
unsubscribe form always `unsubscribe_requested`, whatever the address; the inbox learns the rest.
`updated`, `already_subscribed`, `unsubscribed` and `not_subscribed` stay editable (forms stored
with them keep their shape) but no form answers them any more.
"""

from __future__ import annotations

SUCCESS, NOTICE, ERROR = "success", "notice", "error"

MESSAGE_TYPES: dict[str, str] = {
    "subscribed": SUCCESS,
    "updated": SUCCESS,
    "already_subscribed": NOTICE,
    "unsubscribed": SUCCESS,
    "not_subscribed": NOTICE,
    "error": ERROR,
    "no_lists_selected": ERROR,
    "spam": ERROR,
    "invalid_email": ERROR,
    "required_field_missing": ERROR,
    "rate_limited": ERROR,
    "unsubscribe_requested": SUCCESS,
}

DEFAULT_MESSAGES: dict[str, str] = {
    "subscribed": "Thank you! Please check your inbox and follow the link in our email to confirm your sign-up.",
    "updated": "Thank you! We have sent you an email: follow its link to confirm the changes to your subscription.",
    "already_subscribed": "You are already signed up for this newsletter.",
    "unsubscribed": "You have been unsubscribed. You will not receive these emails any more.",
    "not_subscribed": "This email address is not signed up for this newsletter.",
    "error": "Sorry, something went wrong. Please try again later.",
    "no_lists_selected": "Please choose at least one newsletter.",
    "spam": "Sorry, your sign-up looked automated and was not accepted. Please try again.",
    "invalid_email": "Please enter a valid email address.",
    "required_field_missing": "Please fill in all the required fields.",
    "rate_limited": "Too many sign-ups came from your connection. Please try again later.",
    "unsubscribe_requested": "Thank you. If this address is on our list, we have sent it an email: follow its link "
                             "to unsubscribe.",
}

MAX_MESSAGE_LENGTH = 1000


def messages_of(stored: dict | None) -> dict[str, str]:
    """A form's texts for every key: what it stores, our default for anything it does not."""
    stored = stored if isinstance(stored, dict) else {}
    return {key: str(stored.get(key) or default) for key, default in DEFAULT_MESSAGES.items()}
