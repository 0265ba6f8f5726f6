"""What an LMS API key may do; apart from apikeys.py so that `sitehost lms --help` lists them
without loading the key store (SQLAlchemy, the users service)."""

PERMISSIONS = ("read", "write", "read_write", "delete", "all")
