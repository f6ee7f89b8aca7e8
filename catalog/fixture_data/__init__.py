"""The data behind catalog/fixtures/*.json, kept as Python so every row can cite its source.

`python manage.py catalog_fixtures_write` regenerates the JSON; a test checks they agree.
Primary keys are fixed (ranges per kind) so `loaddata` is idempotent.
"""
