"""Args and shapes of the spam/v1 routes."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

INTERVALS = ("60-days", "6-months", "all")


class KeyArgs(Schema):
    key = fields.String(required=True, validate=validate.Length(max=200), metadata={
        "description": "The spam service key: 12 characters (surrounding spaces are trimmed)."})


class SettingsArgs(Schema):
    """The two settings; each optional, left unchanged when not sent. Also the settings' shape."""

    spam_strictness = fields.Boolean(metadata={
        "description": "Discard the worst spam outright instead of keeping it in the spam folder."})
    spam_show_user_comments_approved = fields.Boolean(metadata={
        "description": "Show each author's approved-comment count beside their comments."})


class StatsArgs(Schema):
    interval = fields.String(load_default="all", validate=validate.OneOf(INTERVALS), metadata={
        "description": "The period the statistics cover: 60-days, 6-months or all."})


class AlertArgs(Schema):
    key = fields.String(validate=validate.Length(max=200), metadata={
        "description": "The site's spam service key (12 characters); authorises the call."})


class StatsSchema(Schema):
    """Statistics of one period, computed from the verdict history."""

    spam = fields.Integer(metadata={"description": "Spam caught (including discarded)."})
    ham = fields.Integer(metadata={"description": "Submissions judged not spam."})
    missed_spam = fields.Integer(metadata={"description": "Judged not spam, marked spam by a moderator."})
    false_positives = fields.Integer(metadata={"description": "Judged spam, marked not spam by a moderator."})
    accuracy = fields.Float(allow_none=True, metadata={"description": "Percentage of verdicts moderators left "
                                                                      "standing; null before any verdict."})
    time_saved = fields.Integer(metadata={"description": "Seconds of moderation the caught spam saved."})
    service = fields.Dict(metadata={"description": "The remote service's own get-stats answer, passed through "
                                                   "(only when a service is configured and answers)."})
