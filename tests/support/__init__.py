"""Shared test support: app fixtures (`apps`) and the headless browser settings (`chromium`)."""
