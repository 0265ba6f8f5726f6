"""Values shared by the core/v2 content tests."""

API = "/wp-json/core/v2"
