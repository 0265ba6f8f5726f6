"""What a plugin hands to `app.mail.send`: a Message with optional Attachments.

A Message is plain data; `build_email` checks it (addresses, header values, sizes) and
turns it into the bytes of an RFC 5322 message, which is what the outbox stores. Checking
happens when the message is sent to the outbox, so a bad address or a header value with a
line break is refused in the caller's request (ValueError) and never reaches SMTP, whatever
the caller. URI headers (List-Unsubscribe and its kin) are written as given, never folded
into RFC 2047 encoded-words, which a mail client cannot read as a URI.
"""

from __future__ import annotations

import base64
import binascii
import email.headerregistry
import email.policy
import email.utils
import functools
import quopri
import re
import uuid
from dataclasses import dataclass, field
from email.headerregistry import Address
from email.message import EmailMessage

import email_validator

MAX_RECIPIENTS = 100
MAX_ADDRESS_LENGTH = 320
MAX_HEADER_LENGTH = 998  # RFC 5322's limit for one line
MAX_HEADERS = 50
MAX_BODY_CHARACTERS = 1_000_000
MAX_ATTACHMENTS = 20
MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024
# Headers the outbox sets itself: a plugin cannot override them through `headers`.
RESERVED_HEADERS = {"from", "to", "cc", "bcc", "subject", "reply-to", "date", "message-id", "mime-version",
                    "content-type", "content-transfer-encoding", "content-disposition"}
# Every character str.splitlines() breaks on: the email package refuses them all when it writes a
# header, and some mail readers break lines on them, so none may be in a header value.
LINE_BREAKS = frozenset("\r\n\x00\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
# Headers whose value is a list of <URI>s (RFC 2369, RFC 8058's List-Unsubscribe-Post, RFC 5064):
# an encoded-word there is no URI any more, so they are ASCII and written on one line as given.
URI_HEADERS = {"list-help", "list-unsubscribe", "list-subscribe", "list-post", "list-owner", "list-archive",
               "list-unsubscribe-post", "archived-at"}


class VerbatimHeader(email.headerregistry.UnstructuredHeader, email.headerregistry.BaseHeader):
    """A header folded never: one line, exactly as checked (`check_message` keeps it ASCII and short).

    HeaderRegistry mixes BaseHeader into the classes it is given; naming it here too gives the same
    method order and says what `fold` relies on (`self.name`)."""

    @classmethod
    def parse(cls, value, kwds):
        super().parse(value, kwds)
        kwds["decoded"] = value  # as given: an encoded-word in it is text, never decoded into line breaks

    def fold(self, *, policy):
        return f"{self.name}: {self}{policy.linesep}"


def _header_registry() -> email.headerregistry.HeaderRegistry:
    registry = email.headerregistry.HeaderRegistry()
    for name in URI_HEADERS:
        registry.map_to_type(name, VerbatimHeader)
    return registry


# 7bit: every body is quoted-printable or base64, so any SMTP server takes it (no 8BITMIME needed).
POLICY = email.policy.SMTP.clone(cte_type="7bit", header_factory=_header_registry())


@dataclass
class Attachment:
    """A file attached to a Message."""

    filename: str
    content_type: str
    data: bytes


@dataclass
class Message:
    """An email to queue with `app.mail.send(message, session=None)`.

    `to`: recipient addresses ("name@school.test" or "Name <name@school.test>"). `sender`:
    the From address (default: `[mail] from_address`). `headers`: extra headers such as
    List-Unsubscribe (the addressing, subject, date and MIME headers are the outbox's own).
    """

    to: list[str]
    subject: str
    text: str
    html: str | None = None
    sender: str | None = None
    reply_to: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    attachments: list[Attachment] = field(default_factory=list)


def check_header_value(name: str, value: str) -> str:
    """`value` if it may be a header value; ValueError for line breaks (header injection) or size."""
    if not isinstance(value, str):
        raise ValueError(f"mail header {name}: a string is required")
    if not LINE_BREAKS.isdisjoint(value):
        raise ValueError(f"mail header {name}: line breaks are not allowed in a header value")
    if len(value) > MAX_HEADER_LENGTH:
        raise ValueError(f"mail header {name}: longer than {MAX_HEADER_LENGTH} characters")
    if "=?" in value and _breaks_when_decoded(value):
        raise ValueError(f"mail header {name}: line breaks are not allowed in a header value")
    return value


# An RFC 2047 encoded-word starting at each "=?" (a lookahead: overlapping ones are found too),
# more leniently than the email package finds them: in quotes, in a word, with a "?" in the text.
ENCODED_WORD = re.compile(r"(?==\?([^?]*)\?([bBqQ])\?(.*?)\?=)", re.DOTALL)


def _breaks_when_decoded(value: str) -> bool:
    """True when an encoded-word in `value` decodes to a line break.

    A Message's text is plain text, but the email package decodes "=?utf-8?q?=0D=0A?=" found in
    a Subject, a display name or a file name and writes the decoded line break as it is: one
    more header line. Every encoded-word is decoded alone (bytes and charset), and the value
    as the package parses an unstructured header.
    """
    try:
        decoded = [str(POLICY.header_factory("subject", value))]
    except Exception:  # noqa: BLE001 - a value the email package cannot parse is not written either
        return True
    for match in ENCODED_WORD.finditer(value):
        charset, encoding, text = match.groups()
        try:
            raw = base64.b64decode(text + "===") if encoding in "bB" else quopri.decodestring(
                text.replace("_", " "), header=True)
        except (ValueError, binascii.Error):
            continue
        decoded.append(raw.decode("latin-1"))
        try:
            decoded.append(raw.decode(charset.partition("*")[0] or "ascii", errors="replace"))
        except LookupError:
            pass
    return any(not LINE_BREAKS.isdisjoint(text) for text in decoded)


def parse_address(text: str, what: str = "address") -> Address:
    """One mailbox ("a@b.c" or "Name <a@b.c>") checked for syntax; ValueError when it is not one.

    Syntax only, never DNS: sending must not depend on the network. Reserved test domains
    (school.test, admin@school.invalid, localhost) are accepted, as sites and tests use them.
    """
    check_header_value(what, text)
    if len(text) > MAX_ADDRESS_LENGTH + 200:
        raise ValueError(f"{what}: too long")
    name, address, problem = _checked_address(text)
    if problem:
        raise ValueError(f"{what}: {problem}")
    return Address(display_name=name, addr_spec=address)


@functools.lru_cache(maxsize=4096)
def _checked_address(text: str) -> tuple[str, str, str]:
    """(display name, address, problem or '') of one mailbox; cached, as the same few addresses recur."""
    found = email.utils.getaddresses([text])
    name, address = found[0] if len(found) == 1 else ("", "")
    if not address or "@" not in address or address.count("@") > 1 and '"' not in address:
        return "", "", f"{text!r} is not an email address"
    local, _, domain = address.rpartition("@")
    candidate = address
    if domain.rsplit(".", 1)[-1].lower() in email_validator.SPECIAL_USE_DOMAIN_NAMES:
        candidate = f"{local}@{domain}.example.com"  # check the labels' syntax, allow the reserved name
    try:
        email_validator.validate_email(candidate, check_deliverability=False, test_environment=True)
    except email_validator.EmailNotValidError as error:
        return "", "", f"{text!r} is not a valid email address ({error})"
    if len(address) > MAX_ADDRESS_LENGTH:
        return "", "", "too long"
    return name, address, ""


def check_message(message: Message, default_sender: str, domain: str = "") -> tuple[str, list[str], dict]:
    """(envelope sender, envelope recipients, spec) of a Message; ValueError when it is not valid.

    The spec is plain JSON-ready data (what `render` turns into the RFC 5322 bytes): the outbox
    stores it and the sender renders it, so a request that queues mail never pays for MIME.
    """
    if not isinstance(message, Message):
        raise ValueError("app.mail.send takes a host.mail.Message")
    recipients = list(message.to or [])
    if not recipients:
        raise ValueError("a message needs at least one recipient")
    if len(recipients) > MAX_RECIPIENTS:
        raise ValueError(f"at most {MAX_RECIPIENTS} recipients per message")
    to = [_mailbox(item, "to") for item in recipients]
    sender = _mailbox(message.sender or default_sender, "sender")
    reply_to = _mailbox(message.reply_to, "reply_to") if message.reply_to else None
    subject = check_header_value("Subject", message.subject or "")
    if not isinstance(message.text, str) or len(message.text) > MAX_BODY_CHARACTERS:
        raise ValueError(f"text: a string of at most {MAX_BODY_CHARACTERS:,} characters is required")
    if message.html is not None and (not isinstance(message.html, str) or len(message.html) > MAX_BODY_CHARACTERS):
        raise ValueError(f"html: a string of at most {MAX_BODY_CHARACTERS:,} characters is required")
    headers = dict(message.headers or {})
    if len(headers) > MAX_HEADERS:
        raise ValueError(f"at most {MAX_HEADERS} extra headers")
    for name, value in headers.items():
        if not isinstance(name, str) or not name or not all(33 <= ord(c) <= 126 and c != ":" for c in name):
            raise ValueError(f"mail header name {name!r} is not valid")
        if name.lower() in RESERVED_HEADERS:
            raise ValueError(f"mail header {name} is set by the outbox; use the Message fields")
        check_header_value(name, value)
        if name.lower() in URI_HEADERS:
            _check_uri_header(name, value)
    attachments = list(message.attachments or [])
    if len(attachments) > MAX_ATTACHMENTS:
        raise ValueError(f"at most {MAX_ATTACHMENTS} attachments")
    files = []
    for attachment in attachments:
        if not isinstance(attachment, Attachment):
            raise ValueError("attachments must be host.mail.Attachment objects")
        filename = check_header_value("attachment filename", attachment.filename or "")
        if not filename or "/" in filename or "\\" in filename:
            raise ValueError(f"attachment filename {filename!r} is not valid")
        content_type = check_header_value("attachment content_type", attachment.content_type or "")
        maintype, _, subtype = content_type.partition("/")
        if not maintype or not subtype or " " in content_type or ";" in content_type:
            raise ValueError(f"attachment content_type {content_type!r} is not a MIME type")
        if not isinstance(attachment.data, (bytes, bytearray)) or len(attachment.data) > MAX_ATTACHMENT_BYTES:
            raise ValueError(f"attachment data: bytes of at most {MAX_ATTACHMENT_BYTES:,} are required")
        files.append({"filename": filename, "content_type": content_type,
                      "data": base64.b64encode(bytes(attachment.data)).decode("ascii")})

    spec = {
        "from": sender, "to": to, "reply_to": reply_to, "subject": subject,
        "date": email.utils.formatdate(localtime=False),
        "message_id": f"<{uuid.uuid4().hex}@{_message_id_domain(domain or sender[1].rpartition('@')[2])}>",
        "headers": headers, "text": message.text, "html": message.html, "attachments": files,
    }
    return sender[1], [address for _name, address in to], spec


def _check_uri_header(name: str, value: str) -> None:
    """A URI header is written unfolded and unencoded: printable ASCII that fits one line."""
    if not all(32 <= ord(character) <= 126 for character in value):
        raise ValueError(f"mail header {name}: a URI header takes printable ASCII only (percent-encode the URI)")
    if len(name) + 2 + len(value) > MAX_HEADER_LENGTH:
        raise ValueError(f"mail header {name}: longer than one line of {MAX_HEADER_LENGTH} characters")


def _message_id_domain(domain: str) -> str:
    """The right-hand side of a Message-ID: ASCII (IDNA for an internationalised name), else "sitehost"."""
    if not domain.isascii():
        try:
            domain = domain.encode("idna").decode("ascii")
        except UnicodeError:
            return "sitehost"
    if not domain or not all(character.isalnum() or character in ".-_" for character in domain):
        return "sitehost"
    return domain


def _mailbox(text: str, what: str) -> list[str]:
    """[display name, address] of one checked mailbox (parse_address without building an Address)."""
    check_header_value(what, text)
    if len(text) > MAX_ADDRESS_LENGTH + 200:
        raise ValueError(f"{what}: too long")
    name, address, problem = _checked_address(text)
    if problem:
        raise ValueError(f"{what}: {problem}")
    if not address.isascii():
        address = _ascii_address(address, what)
    return [name, address]


def _ascii_address(address: str, what: str) -> str:
    """The address as a 7-bit header and SMTP without SMTPUTF8 carry it: an IDNA domain; ValueError if none."""
    local, _, domain = address.rpartition("@")
    if not local.isascii():
        raise ValueError(f"{what}: {address!r} has a non-ASCII name before the @, which needs SMTPUTF8 "
                         "(the outbox does not use it)")
    try:
        return f"{local}@{domain.encode('idna').decode('ascii')}"
    except UnicodeError:
        raise ValueError(f"{what}: {address!r} has a domain with no ASCII form") from None


def render(spec: dict) -> bytes:
    """The RFC 5322 bytes of a checked message spec (check_message)."""
    email_message = EmailMessage(policy=POLICY)
    email_message["From"] = Address(display_name=spec["from"][0], addr_spec=spec["from"][1])
    email_message["To"] = [Address(display_name=name, addr_spec=address) for name, address in spec["to"]]
    if spec.get("reply_to"):
        email_message["Reply-To"] = Address(display_name=spec["reply_to"][0], addr_spec=spec["reply_to"][1])
    email_message["Subject"] = spec["subject"]
    email_message["Date"] = spec["date"]
    email_message["Message-ID"] = spec["message_id"]
    for name, value in spec["headers"].items():
        email_message[name] = value
    email_message.set_content(spec["text"])
    if spec.get("html") is not None:
        email_message.add_alternative(spec["html"], subtype="html")
    for attachment in spec["attachments"]:
        maintype, _, subtype = attachment["content_type"].partition("/")
        email_message.add_attachment(base64.b64decode(attachment["data"]), maintype=maintype, subtype=subtype,
                                     filename=attachment["filename"])
    return email_message.as_bytes(policy=POLICY)


def build_email(message: Message, default_sender: str, domain: str = "") -> tuple[str, list[str], bytes]:
    """(envelope sender, envelope recipients, message bytes) of a checked Message; ValueError if bad."""
    envelope_sender, recipients, spec = check_message(message, default_sender, domain)
    return envelope_sender, recipients, render(spec)
