"""Baseline: the tables of a database an earlier release made, brought to what the first release with migrations made.

Runs only on such a database (a new site's tables are made from the metadata and stamped at the newest
revision). Releases before stored term counts made `terms` without `count`; the release just before
this one added it at every start, so the column may or may not be there: this is the one revision
that looks first. The counts themselves are made by the start-up that follows (install_term_counts).
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade():
    columns = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("terms")}
    if "count" not in columns:
        with op.batch_alter_table("terms") as batch:
            batch.add_column(sa.Column("count", sa.Integer, nullable=False, server_default="0"))


def downgrade():
    with op.batch_alter_table("terms") as batch:
        batch.drop_column("count")
