"""Shared test support, importable as `support`: app fixtures (`apps`), the Pilot helpers (`pilot`), bank YAML
(`banks`, `export_bank`), the repository root (`paths`) and the headless browser settings (`chromium`)."""
