"""0.2.0: a loan counts how often it was renewed (the librarian's limit is three)."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade():
    with op.batch_alter_table("library_loans") as batch:
        batch.add_column(sa.Column("renewals", sa.Integer, nullable=False, server_default="0"))


def downgrade():
    with op.batch_alter_table("library_loans") as batch:
        batch.drop_column("renewals")
