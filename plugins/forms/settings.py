"""`[plugins.forms]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from marshmallow import ValidationError, fields, validate

from host import PluginSettings

MEDIA_DEFAULT_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class FormsConfig:
    submissions_per_minute: int
    files_dir: Path
    max_fields: int
    max_field_characters: int
    max_file_bytes: int
    verify_nonce: bool
    autoreplies_per_recipient_per_day: int
    store_submissions: bool
    admin_email: str


class FormsConfigSchema(PluginSettings):
    settings_class = FormsConfig

    submissions_per_minute = fields.Integer(load_default=30, validate=validate.Range(min=0, max=1_000_000), metadata={
        "description": "Submissions one client address may send per minute, all forms and workers together "
                       "(0: no limit); a form's `submissions_per_minute` additional setting may set its own."})
    files_dir = fields.String(load_default="", metadata={
        "description": "Folder of uploaded form files, outside the public uploads; empty: `form-files` beside "
                       "the uploads folder."})
    max_fields = fields.Integer(load_default=200, validate=validate.Range(min=1, max=10_000), metadata={
        "description": "Parts one submission may have; more answers 400."})
    max_field_characters = fields.Integer(load_default=65_536, validate=validate.Range(min=1, max=10_000_000),
                                          metadata={"description": "Characters of one posted value; more answers 400."})
    max_file_bytes = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=1), metadata={
        "description": "Largest uploaded file, whatever a [file] tag's limit says; unset: media's limit "
                       "(`[plugins.core] max_upload_bytes`, 10 MB by default)."})
    verify_nonce = fields.Boolean(load_default=False, metadata={
        "description": "Rendered forms carry a per-user nonce, and a signed-in submission without a valid one is spam "
                       "(off, as in the reference)."})
    autoreplies_per_recipient_per_day = fields.Integer(
        load_default=3, validate=validate.Range(min=0, max=1000), metadata={
            "description": "Mails that one address typed by a visitor (an autoreply, such as a form's mail 2 to "
                           "`[your-email]`) may receive per day, all forms and workers together (0: no autoreply "
                           "is sent). Counted in the database; an autoreply also needs the spam check to pass."})
    store_submissions = fields.Boolean(load_default=True, metadata={
        "description": "Keep what each submission sent (its fields, files, address and browser) for the admin's Form "
                       "submissions page, as Flamingo does for the reference; files stay after a mail carries them. "
                       "Off: a submission keeps only its status, date and mail, and files go once mailed."})
    admin_email = fields.String(load_default="", metadata={
        "description": "Address `[_site_admin_email]` stands for in mail; empty: the first administrator's."})

    def prepare(self, data):
        problems = {}
        if data["max_file_bytes"] is None:
            core_limit = self.host.plugin_config("core").get("max_upload_bytes")
            data["max_file_bytes"] = core_limit if isinstance(core_limit, int) and core_limit > 0 else MEDIA_DEFAULT_BYTES
        uploads = Path(self.host.uploads_dir).resolve()
        folder = data["files_dir"] or str(uploads.parent / "form-files")
        data["files_dir"] = Path(folder).resolve()
        if data["files_dir"] == uploads or uploads in data["files_dir"].parents:
            problems["files_dir"] = (f"{folder!r} is inside the public uploads folder {str(uploads)!r}; "
                                     "visitors' files must not be served: choose a folder outside it")
        if data["admin_email"]:
            from host.mail import parse_address

            try:
                parse_address(data["admin_email"], repr(data["admin_email"]))
            except ValueError as error:
                problems["admin_email"] = str(error)
        if problems:
            raise ValidationError(problems)
        return data


def settings_of(app) -> FormsConfig:
    return app.plugin_settings("forms")
