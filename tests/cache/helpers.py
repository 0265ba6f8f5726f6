"""Values shared by the cache tests."""

NOTES = "/example/v1/notes"
SECRET = "s3cret-shared-with-the-optimisation-service"
