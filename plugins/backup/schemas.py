"""Arguments and shapes of the backup/v1 routes."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from host.args import PagedArgs

class VersionsSchema(Schema):
    """GET backup/v1/versions: the probe migration tools send before a transfer."""

    success = fields.Boolean(dump_only=True, metadata={
        "description": "Always false, as the original handler never sets it (kept for its clients)."})
    message = fields.String(dump_only=True, metadata={"description": "Always empty."})
    wp = fields.String(dump_only=True, metadata={"description": "Version of the site software (sitehost)."})
    plugin = fields.String(dump_only=True, metadata={"description": "Version of the backup plugin."})


class BackupSchema(Schema):
    """One archive in the backups folder."""

    name = fields.String(dump_only=True, metadata={"description": "File name of the archive."})
    size = fields.Integer(dump_only=True, metadata={"description": "Size in bytes."})
    created = fields.String(dump_only=True, metadata={"description": "When the backup was made (UTC, ISO 8601)."})
    site = fields.Dict(dump_only=True, metadata={"description": "Name and address of the site backed up."})
    sitehost_version = fields.String(dump_only=True)
    schema_version = fields.String(dump_only=True)
    engine = fields.String(dump_only=True, metadata={"description": "Database engine backed up."})
    tables = fields.Integer(dump_only=True, metadata={"description": "Number of tables."})
    rows = fields.Integer(dump_only=True, metadata={"description": "Rows in all tables."})
    uploads = fields.Integer(dump_only=True, metadata={"description": "Number of uploaded files."})
    plugins = fields.Dict(dump_only=True, metadata={"description": "Enabled plugins and their versions."})
    readable = fields.Boolean(dump_only=True, metadata={"description": "False when the manifest cannot be read."})
    problem = fields.String(dump_only=True, metadata={"description": "Why the archive cannot be read, if so."})


class JobSchema(Schema):
    """A backup running in the server, or finished."""

    id = fields.Integer(dump_only=True)
    status = fields.String(dump_only=True, metadata={"description": "running, done, failed or interrupted."})
    trigger = fields.String(dump_only=True, metadata={
        "description": "rest (asked for over REST), admin (asked for in the admin area), schedule, or verify "
                       "(a check of `archive` asked for in the admin area)."})
    stage = fields.String(dump_only=True, metadata={
        "description": "tables, uploads or verify while running; finished."})
    done = fields.Integer(dump_only=True, metadata={"description": "Rows or bytes of the stage done."})
    total = fields.Integer(dump_only=True, metadata={"description": "Rows or bytes of the stage in all."})
    percent = fields.Integer(dump_only=True)
    archive = fields.String(dump_only=True, metadata={"description": "File name of the archive once done."})
    message = fields.String(dump_only=True)
    created = fields.String(dump_only=True)
    finished = fields.String(dump_only=True, allow_none=True)


class ArchiveNameArgs(Schema):
    # The name's form (create.is_archive_name) is checked by the handler, after the permission check, so
    # that a caller without manage_options learns nothing from a 400 about what a name looks like.
    name = fields.String(required=True, validate=validate.Length(min=1, max=200),
                         metadata={"description": "File name of the archive (sitehost-backup-....tar)."})


class JobArgs(Schema):
    id = fields.Integer(required=True, validate=validate.Range(min=1, max=2**31 - 1),
                        metadata={"description": "Id of the backup job."})


class CreateBackupArgs(Schema):
    """POST backup/v1/backups takes no arguments: the whole site is backed up."""


class BackupListArgs(PagedArgs):
    """page and per_page over the archives, newest first."""


class JobListArgs(PagedArgs):
    """page and per_page over the jobs, newest first."""
