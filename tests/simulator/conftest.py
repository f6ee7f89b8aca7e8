from pathlib import Path

import pytest
from django.core.management import call_command

FIXTURES = sorted((Path(__file__).resolve().parents[2] / "catalog" / "fixtures").glob("*.json"))


@pytest.fixture
def catalog(db: None) -> None:
    """The shipped catalog: parts, dated prices and seed builds A–D."""
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)


@pytest.fixture
def catalog_committed(transactional_db: None) -> None:
    """The shipped catalog, committed so that worker processes see it."""
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)
