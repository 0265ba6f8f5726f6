"""Route args and resource shapes of forms/v1."""

from __future__ import annotations

from marshmallow import INCLUDE, Schema, fields, validate

from host.args import enum_field, in_order, per_page_field

from . import properties as props

LOCALE = r"^[a-z]{2,3}(_[A-Z]{2})?$"
MAX_TITLE = 200


def _text(description: str, maximum: int = props.MAX_TEXT) -> fields.String:
    return fields.String(validate=validate.Length(max=maximum), metadata={"description": description})


class MailSchema(Schema):
    """One mail template (`mail` or `mail_2`)."""

    active = fields.Boolean(metadata={"description": "Whether this mail is sent."})
    subject = _text("Subject; [field] tags are replaced.", 2000)
    sender = _text("From address; [field] tags are replaced.", 1000)
    body = _text("Body; [field] tags are replaced.")
    recipient = _text("Comma-separated recipients; [field] tags are replaced.", 2000)
    additional_headers = _text("Extra header lines (Reply-To, X-...).", 5000)
    attachments = _text("[file-field] tags of the files to attach.", 2000)
    use_html = fields.Boolean(metadata={"description": "The body is HTML."})
    exclude_blank = fields.Boolean(metadata={"description": "Leave out body lines whose fields are all empty."})


MessagesSchema = Schema.from_dict(
    {key: _text(f"The `{key}` message.", 2000) for key in props.DEFAULT_MESSAGES}, name="FormsMessagesSchema")


class FormListArgs(Schema):
    """The reference's list args; the answer is a bare array without paging headers."""

    per_page = per_page_field(default=-1, minimum=-1, description="Forms to return; -1 (or 0) for all.")
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1),
                            metadata={"description": "Forms to skip."})
    order = enum_field(["asc", "desc", "ASC", "DESC"], "Sort ascending or descending.", "asc")
    orderby = enum_field(["id", "ID", "title", "date", "modified", "slug"], "Sort by this attribute.", "id")
    search = fields.String(validate=validate.Length(max=1000), metadata={"description": "Forms whose title matches."})


class FormIdArgs(Schema):
    id = fields.Integer(required=True, validate=validate.Range(min=1, max=2**31 - 1),
                        metadata={"description": "Unique identifier for the contact form."})


class FeedbackBody(Schema):
    """The multipart/form-data body of a submission: the hidden fields the rendered form carries, then
    the form's own fields by their names (text, repeated values, files). The feedback handler reads
    and checks them (feedback.py); this tells the OpenAPI document, so a client sends multipart."""

    class Meta:
        unknown = INCLUDE  # the form's own fields, whatever the template names them

    form = fields.String(data_key="_forms", metadata={"description": "Id of the form, as rendered."})
    version = fields.String(data_key="_forms_version", metadata={"description": "Version of the form markup."})
    locale = fields.String(data_key="_forms_locale", metadata={"description": "Locale of the form."})
    # Characters other than letters, digits, `_` and `-` are dropped; nothing left is refused (400).
    unit_tag = fields.String(data_key="_forms_unit_tag", required=True, validate=validate.Regexp(r"[A-Za-z0-9_-]"),
                             metadata={"description": "Which rendering of the form on the page was submitted."})
    container_post = fields.String(data_key="_forms_container_post",
                                   metadata={"description": "Id of the page that shows the form (digits)."})
    posted_data_hash = fields.String(data_key="_forms_posted_data_hash",
                                     metadata={"description": "Hash of the previous submission, if any."})
    nonce = fields.String(data_key="_forms_nonce",
                          metadata={"description": "The signed-in visitor's form nonce (subscribers-only forms)."})


class FormWriteArgs(Schema):
    """Create and update: only the properties sent change on update."""

    title = fields.String(validate=validate.Length(max=MAX_TITLE), metadata={"description": "Title of the form."})
    locale = fields.String(validate=validate.Regexp(LOCALE), metadata={"description": "Locale, such as en_US."})
    form = _text("The form template (bracket tags inside HTML).", 200_000)
    mail = fields.Nested(MailSchema, metadata={"description": "The mail sent on each submission."})
    mail_2 = fields.Nested(MailSchema, metadata={"description": "An optional second mail (a copy to the visitor)."})
    messages = fields.Nested(MessagesSchema, metadata={"description": "Texts shown to visitors, by key."})
    additional_settings = _text("`name: value` lines (demo_mode, skip_mail, subscribers_only, ...).", 20_000)
    status = enum_field(["publish", "fields-disabled"], "publish takes submissions; fields-disabled shows the form "
                        "with its fields disabled and takes none (an extension of the reference).")
    context = enum_field(["save", "dry-run"], "save stores the form; dry-run only checks it.", "save")


FormUpdateArgs = in_order(FormIdArgs.from_dict(dict(FormWriteArgs._declared_fields), name="FormUpdateArgs"), "id")


class SubmissionListArgs(Schema):
    form = fields.Integer(validate=validate.Range(min=1, max=2**31 - 1),
                         metadata={"description": "Only submissions of this form."})
    status = enum_field(["validation_failed", "acceptance_missing", "spam", "aborted", "mail_sent", "mail_failed",
                         "error"], "Only submissions with this status.")
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=100_000),
                          metadata={"description": "Current page of the collection."})
    per_page = per_page_field()


class FormSummarySchema(Schema):
    # null in the answer to a create with context=dry-run, which saves nothing (as the real plugin).
    id = fields.Integer(allow_none=True, metadata={"description": "Unique identifier for the contact form."})
    hash = fields.String(metadata={"description": "Short id used to embed the form."})
    slug = fields.String(metadata={"description": "Slug of the form."})
    title = fields.String(metadata={"description": "Title of the form."})
    locale = fields.String(metadata={"description": "Locale of the form."})


class FormSchema(FormSummarySchema):
    properties = fields.Dict(metadata={"description": "form, mail, mail_2, messages and additional_settings."})
    config_errors = fields.Raw(metadata={"description": "Configuration problems by property path (writes only)."})


class FeedbackResultSchema(Schema):
    contact_form_id = fields.Integer(metadata={"description": "The form."})
    status = fields.String(metadata={"description": "validation_failed, acceptance_missing, spam, aborted, "
                                                    "mail_sent, mail_failed or error."})
    message = fields.String(metadata={"description": "Text to show the visitor."})
    posted_data_hash = fields.String(metadata={"description": "Hash of what was posted ('' unless accepted)."})
    into = fields.String(metadata={"description": "#unit-tag of the form on the page."})
    invalid_fields = fields.List(fields.Dict(), metadata={"description": "{field, message, idref, error_id}."})


class RuleSchema(Schema):
    rule = fields.String(metadata={"description": "Rule name: required, email, maxlength, enum, ..."})
    field = fields.String(metadata={"description": "The field it applies to."})
    error = fields.String(metadata={"description": "Message shown when the rule fails."})
    threshold = fields.Raw(metadata={"description": "Limit of min/max rules."})
    accept = fields.List(fields.Raw(), metadata={"description": "Allowed values (enum, file, dayofweek)."})
    base = fields.Raw(metadata={"description": "Start of stepnumber."})
    interval = fields.Raw(metadata={"description": "Step of stepnumber."})


class FeedbackSchemaSchema(Schema):
    """The JSON meta-schema of `feedback/schema`: what a rule document holds."""

    version = fields.String(metadata={"description": "Schema format id."})
    locale = fields.String(metadata={"description": "Locale of the messages."})
    rules = fields.List(fields.Nested(RuleSchema), metadata={"description": "Rules, in field order."})
