"""`POST forms/v1/contact-forms/{id}/feedback`: the submission pipeline (reference §9.3).

Preconditions, in order: 415 when the body is not multipart, 404 for an unknown form, 400
`forms_unit_tag_not_found`. Then the outsider limits (400 for absurd bodies, 429 past the rate
limit), and the state machine: each stage runs only while the status is still `init`:

    validation -> acceptance -> spam -> files -> abort hook -> mail

Every processed submission is stored in forms_submissions with its status, in the request's
transaction, together with its mail in host.mail's outbox: a message whose mail is never
delivered is still kept. `mail_sent` means the mail was accepted into the durable outbox
(queued); the background sender delivers it (README, Forms).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import uuid
from typing import Any

from host import RestError, client_address
from host.auth import users as user_service
from host.signing import Signer

from . import files as uploads
from . import mailing, ratelimit, render, rules, store
from .settings import settings_of

log = logging.getLogger("sitehost.forms")

UNIT_TAG_LENGTH = 100
HIDDEN_PREFIX = "_forms"


def _clean_unit_tag(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    return "".join(character for character in value if character.isascii() and (character.isalnum() or character in "_-"))[
        :UNIT_TAG_LENGTH]


def _posted_hash(values: dict[str, Any]) -> str:
    return hashlib.blake2b(json.dumps(values, sort_keys=True, ensure_ascii=False).encode(), digest_size=16).hexdigest()


def _client_address(request) -> str:
    return client_address(request.app, request.environ) or request.remote_addr or ""


def feedback(request):
    content_type = (request.header("content-type") or "").strip().lower()
    if not content_type.startswith("multipart/form-data"):
        raise RestError("forms_unsupported_media_type", "The request payload format is not supported.", 415)
    # Reads go through a read session of their own: the request's write transaction (and, on SQLite,
    # the site's write lock) starts only when the submission is written, at the end.
    with request.app.db.session() as reader:
        form = store.load(request, request.params["id"], reader)
        if form is None:
            raise RestError("forms_not_found", "The requested contact form was not found.", 404)
        posted = request.form or {}
        unit_tag = _clean_unit_tag(posted.get("_forms_unit_tag"))
        if not unit_tag:
            raise RestError("forms_unit_tag_not_found", "There is no valid unit tag.", 400)
        config = settings_of(request.app)
        _check_size(request, posted, config)
        limit = form.setting("submissions_per_minute")
        limit = int(limit) if isinstance(limit, str) and limit.isdigit() else config.submissions_per_minute
        address = _client_address(request)
        ratelimit.precheck(request.app, reader, address, limit)
        submission = Submission(request, form, unit_tag, posted, address, reader, limit)
        try:
            return submission.run()
        except BaseException:
            submission.discard_files()  # refused or failed: the transaction rolls back, no row names them
            raise


def _check_size(request, posted: dict[str, Any], config) -> None:
    parts = len(request.files or {}) + sum(len(value) if isinstance(value, (list, dict)) else 1
                                           for value in posted.values())
    if parts > config.max_fields:
        raise RestError("forms_too_many_fields", f"A submission has at most {config.max_fields} fields.", 400)
    for name, value in posted.items():
        for item in (value if isinstance(value, list) else value.values() if isinstance(value, dict) else [value]):
            if isinstance(item, str) and len(item) > config.max_field_characters:
                raise RestError("forms_field_too_large", f"The field {name[:100]!r} is longer than "
                                f"{config.max_field_characters:,} characters.", 400, {"field": name[:100]})


class Submission:
    """One run of the state machine; `run()` answers the response body."""

    def __init__(self, request, form: store.Form, unit_tag: str, posted: dict[str, Any], address: str, reader,
                 limit: int):
        self.request = request
        self.reader = reader  # reads; writes go to request.session
        self.limit = limit
        self.counted = False
        self.app = request.app
        self.form = form
        self.unit_tag = unit_tag
        self.posted = posted
        self.address = address
        self.config = settings_of(self.app)
        self.status = "init"
        self.message = ""
        self.invalid: dict[str, str] = {}
        self.spam_log: list[dict[str, str]] = []
        self.uploads: dict[str, list[dict[str, Any]]] = {}  # field -> [{name, content_type, size, path}]
        self.file_data: dict[str, bytes] = {}  # stored path -> bytes (for attachments)
        self.mail_ids: list[int] = []
        self.guid = str(uuid.uuid4())
        self.user_agent = request.header("user-agent") or ""
        self.values = {tag.name: posted.get(tag.name) for tag in form.parsed.tags
                       if tag.name and tag.basetype not in ("file", "submit")}
        container = posted.get("_forms_container_post")
        self.container_post = int(container) if isinstance(container, str) and container.isdigit() and \
            len(container) < 10 else 0

    # --- the stages ----------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        form = self.form
        if form.status == "fields-disabled":
            self.status, self.message = "error", "This form does not take submissions at the moment."
        elif form.setting("subscribers_only") is True and not self.request.user.is_authenticated:
            self.status, self.message = "error", "This contact form is available only for logged in users."
        else:
            self.validate()
            if self.status == "init":
                self.check_acceptance()
            if self.status == "init" and not form.setting("skip_spam_check") is True:
                self.check_spam()
            if self.status == "init":
                self.move_files()
            if self.status == "init":
                self.before_send()
            if self.status == "init":
                self.send_mail()
        return self.finish()

    def _received_files(self) -> dict[str, list[dict[str, Any]]]:
        received: dict[str, list[dict[str, Any]]] = {}
        for tag in self.form.parsed.tags:
            if tag.basetype != "file" or not tag.name:
                continue
            upload = (self.request.files or {}).get(tag.name)
            if upload is None:
                continue
            data = upload.file.read(self.config.max_file_bytes + 1)
            if not data and not (upload.raw_filename or upload.filename):
                continue
            name = uploads.safe_name(upload.raw_filename or upload.filename or "file")
            received[tag.name] = [{"name": name, "size": len(data), "data": data}]
        return received

    def validate(self) -> None:
        self.received = self._received_files()
        quiz_answers = {tag.name: self.posted.get(f"_forms_quiz_answer_{tag.name}") or ""
                        for tag in self.form.parsed.tags if tag.basetype == "quiz"}
        quiz_answers = {name: value if isinstance(value, str) else "" for name, value in quiz_answers.items()}
        described = {name: [{"name": item["name"], "size": item["size"]} for item in items]
                     for name, items in self.received.items()}
        self.invalid = rules.validate(self.form, self.values, described, self.config.max_file_bytes, quiz_answers,
                                      lambda answer: store.quiz_hash(self.app, answer))
        if self.invalid:
            self.status, self.message = "validation_failed", self.form.message("validation_error")

    def check_acceptance(self) -> None:
        for tag in self.form.parsed.tags:
            if tag.basetype != "acceptance" or tag.has_option("optional"):
                continue
            value = self.posted.get(tag.name)
            accepted = isinstance(value, str) and value != "" and value != "0"
            if tag.has_option("invert"):
                accepted = not accepted
            if not accepted:
                self.status, self.message = "acceptance_missing", self.form.message("accept_terms")
                return

    def spam_submission(self) -> dict[str, Any]:
        """What the check_spam hook receives (type, author, email, content, ip, user_agent, guid)."""
        author = email = ""
        texts: list[tuple[str, str]] = []  # (basetype, text) of every field with a value
        names: list[str] = []  # text fields whose name says it holds a name
        for tag in self.form.parsed.tags:
            value = self.values.get(tag.name)
            text = ", ".join(item for item in value if isinstance(item, str)) if isinstance(value, list) else \
                value if isinstance(value, str) else ""
            if not text:
                continue
            if tag.basetype == "email" and not email:
                email = text
            elif tag.basetype == "text" and "name" in tag.name:
                names.append(text)
            else:
                texts.append((tag.basetype, text))
        author = names[0] if names else next((text for kind, text in texts if kind == "text"), "")
        content = [text for kind, text in texts if text != author and kind not in ("hidden", "acceptance", "quiz")]
        return {"type": "form", "author": author, "email": email, "content": "\n".join(content), "ip": self.address,
                "user_agent": self.user_agent, "guid": self.guid, "form_id": self.form.id,
                "referrer": self.request.header("referer") or ""}

    def check_spam(self) -> None:
        verdict = self.app.hook.check_spam(app=self.app, submission=self.spam_submission())
        if isinstance(verdict, dict) and verdict.get("spam"):
            self.spam_log.append({"agent": "check_spam", "reason": str(verdict.get("reason") or "")[:500]})
        elif len(self.user_agent) < 2:
            self.spam_log.append({"agent": "user_agent", "reason": "User-Agent string is unnaturally short."})
        elif self.config.verify_nonce and self.request.user.is_authenticated and \
                not valid_nonce(self.app, self.request.user.id, self.form.id, self.posted.get("_forms_nonce")):
            self.spam_log.append({"agent": "nonce", "reason": "The form nonce is not valid."})
        if self.spam_log:
            self.status, self.message = "spam", self.form.message("spam")

    def move_files(self) -> None:
        for name, items in self.received.items():
            for item in items:
                content_type = uploads.check_bytes(item["name"], item["data"])
                if content_type is None:
                    self.invalid[name] = self.form.message("upload_file_type_invalid")
                    continue
                try:
                    path = uploads.store(uploads.files_area(self.app), item["name"], item["data"])
                except OSError as error:  # a full disk, or an object store that refuses (StorageError)
                    log.error("forms: cannot store an uploaded file: %s", error)
                    self.invalid[name] = self.form.message("upload_failed")
                    continue
                self.uploads.setdefault(name, []).append(
                    {"name": item["name"], "content_type": content_type, "size": item["size"], "path": path})
                self.file_data[path] = item["data"]
        if self.invalid:
            self.status, self.message = "validation_failed", self.form.message("validation_error")
            self._remove_files(self.uploads)
            self.uploads = {}

    def before_send(self) -> None:
        verdict = self.app.hook.forms_before_send_mail(app=self.app, form_id=self.form.id,
                                                       submission=self.spam_submission())
        if isinstance(verdict, dict) and verdict.get("abort"):
            self.status = "aborted"
            self.message = str(verdict.get("message") or "Sending mail has been aborted.")

    def send_mail(self) -> None:
        form = self.form
        if form.setting("demo_mode") is True or form.setting("skip_mail") is True:
            self.status, self.message = "mail_sent", form.message("mail_sent_ok")
            return
        templates = json.dumps([mail for mail in (form.properties.get("mail"), form.properties.get("mail_2"))
                                if mail and mail.get("active")])
        if "_serial_number" in templates:
            self.submission_id = self._store()  # the mail names the submission's number: store it first
        facts = {"id": getattr(self, "submission_id", ""), "ip": self.address, "user_agent": self.user_agent,
                 "container_post": self.container_post, "site_url": self.app.site_address(self.request.session),
                 "admin_email": admin_email(self.request, self.reader) if "_site_admin_email" in templates else "",
                 "url": self.request.header("referer") or ""}
        mail_1 = form.properties.get("mail") or {}
        self._begin_writes()
        try:
            message, _attached, visitor_given = mailing.build(self.app, form, mail_1, self.values, self.uploads,
                                                             self.file_data, facts)
            if self.may_autoreply(visitor_given, "mail"):
                self.mail_ids.append(self.app.mail.send(message, session=self.request.session))
        except ValueError as error:
            log.warning("forms: the mail of form %d could not be queued: %s", form.id, error)
            self.status, self.message = "mail_failed", form.message("mail_sent_ng")
            self.mail_error = str(error)
            return
        mail_2 = form.properties.get("mail_2") or {}
        if mail_2.get("active"):
            try:
                message, _attached, visitor_given = mailing.build(self.app, form, mail_2, self.values, self.uploads,
                                                                 self.file_data, facts)
                if self.may_autoreply(visitor_given, "mail 2"):
                    self.mail_ids.append(self.app.mail.send(message, session=self.request.session))
            except ValueError as error:  # the copy to the visitor is a courtesy: its failure is logged only
                log.info("forms: the second mail of form %d was not queued: %s", form.id, error)
        self.status, self.message = "mail_sent", form.message("mail_sent_ok")

    def may_autoreply(self, visitor_given: list[str], which: str) -> bool:
        """True for a mail to the site's own addresses; for one to addresses the visitor typed, only after
        the spam check passed and while each address is within its autoreplies of the day.

        A mail held back is logged, never told to the visitor: the answer stays `mail_sent`, so
        the limit cannot be probed (and the submission is kept as usual).
        """
        if not visitor_given:
            return True
        form = self.form
        if form.setting("skip_spam_check") is True:
            log.info("forms: %s of form %d goes to an address the visitor typed and the form skips the spam "
                     "check: not sent", which, form.id)
            return False
        limit = self.config.autoreplies_per_recipient_per_day
        for address in visitor_given:
            if not ratelimit.take_autoreply(self.app, self.request.session, address, limit):
                log.info("forms: %s of form %d not sent: an address the visitor typed had its %d autoreplies "
                         "of the day", which, form.id, limit)
                return False
        return True

    # --- the record and the answer -------------------------------------------------------

    def _row(self) -> dict[str, Any]:
        posted_hash = self.posted_data_hash()
        row = self._full_row(posted_hash)
        if not self.config.store_submissions:  # the site keeps no one's words: status, date and mail only
            row.update(fields="{}", files="[]", remote_ip="", user_agent="")
        return row

    def _full_row(self, posted_hash: str) -> dict[str, Any]:
        return {
            "form_id": self.form.id, "created_at": datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None),
            "status": self.status, "posted_data_hash": posted_hash, "unit_tag": self.unit_tag,
            "container_post": self.container_post, "remote_ip": self.address[:64], "user_agent": self.user_agent[:1000],
            "user_id": int(self.request.user.id or 0), "guid": self.guid,
            "fields": json.dumps(self.values, ensure_ascii=False),
            "files": json.dumps([{"field": name, **{key: item[key] for key in ("name", "content_type", "size", "path")}}
                                 for name, items in self.uploads.items() for item in items]),
            "mail_ids": json.dumps(self.mail_ids), "invalid_fields": json.dumps(self.invalid),
            "spam_log": json.dumps(self.spam_log),
        }

    def _begin_writes(self) -> None:
        """The first statement of the write transaction: count this submission for the rate limit."""
        if not self.counted:
            self.counted = True
            ratelimit.count_submission(self.app, self.request.session, self.address, self.limit)

    def discard_files(self) -> None:
        self._remove_files(self.uploads)

    def _store(self) -> int:
        from sqlalchemy import insert

        self._begin_writes()
        table = self.app.db.metadata.tables["forms_submissions"]
        statement = self.app.db.prepared("forms.submission_insert", lambda: insert(table))
        return int(self.request.session.execute(statement, self._row()).inserted_primary_key[0])

    def _update_stored(self) -> None:
        from sqlalchemy import update

        table = self.app.db.metadata.tables["forms_submissions"]
        row = self._row()
        row.pop("created_at")
        self.request.session.execute(update(table).where(table.c.id == self.submission_id).values(**row))

    def posted_data_hash(self) -> str:
        if self.status in ("init", "validation_failed", "acceptance_missing", "spam", "error"):
            return ""
        return _posted_hash({"values": self.values, "files": {name: [item["name"] for item in items]
                                                              for name, items in self.uploads.items()}})

    def finish(self) -> dict[str, Any]:
        if getattr(self, "submission_id", None) is None:
            self.submission_id = self._store()
        else:
            self._update_stored()
        if not self.config.store_submissions and self.uploads:
            area = uploads.files_area(self.app)
            stored = [item["path"] for items in self.uploads.values() for item in items]
            # The outbox row holds a copy of each attached file; with storing off no one else needs them.
            self.request.after_commit(lambda: [uploads.remove(area, path) for path in stored])
        body: dict[str, Any] = {
            "contact_form_id": self.form.id, "status": self.status, "message": self.message,
            "posted_data_hash": self.posted_data_hash(), "into": f"#{self.unit_tag}",
            "invalid_fields": [
                {"field": name.replace(".", "_"), "message": message, "idref": None,
                 "error_id": f"{self.unit_tag}-ve-{name.replace('.', '_')}"}
                for name, message in self.invalid.items()],
        }
        if self.form.setting("demo_mode") is True:
            body["demo_mode"] = True
        body.update(render.refill(self.app, self.form))
        return body

    def _remove_files(self, stored: dict[str, list[dict[str, Any]]]) -> None:
        for items in stored.values():
            for item in items:
                uploads.remove(uploads.files_area(self.app), item["path"])


def admin_email(request, session) -> str:
    """`[_site_admin_email]`: `[plugins.forms] admin_email`, else the first administrator's address."""
    configured = settings_of(request.app).admin_email
    if configured:
        return configured
    from sqlalchemy import select

    users = user_service.tables(request.app)["users"]
    found = session.execute(select(users.c.email).where(users.c.roles.like("%administrator%"))
                                    .order_by(users.c.id).limit(1)).scalar()
    return found or request.app.mail.settings.from_address


def nonce(app, user_id: int, form_id: int, day_offset: int = 0) -> str:
    day = datetime.date.today().toordinal() - day_offset
    return store.signed(app, "nonce", f"{user_id}:{form_id}:{day}")[:20]


def valid_nonce(app, user_id: int, form_id: int, given: Any) -> bool:
    return any(Signer.matches(given, nonce(app, user_id, form_id, offset)) for offset in (0, 1))
