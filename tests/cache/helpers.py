"""Values shared by the cache tests."""

NOTES = "/example/v1/notes"
SECRET = "s3cret-shared-with-the-optimisation-service"
SERVICE_ADDRESS = "203.0.113.9"  # one of the addresses the service publishes in the tests
SERVICE_ADDRESSES = (SERVICE_ADDRESS, "2001:db8::7")
SERVICE = {"REMOTE_ADDR": SERVICE_ADDRESS}  # extra_environ of a request from the service
