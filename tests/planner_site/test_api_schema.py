from pathlib import Path

import yaml
from django.core.management import call_command
from django.test import Client


def test_the_openapi_schema_is_valid_and_generates_without_warnings(tmp_path: Path) -> None:
    schema_path = tmp_path / "schema.yml"

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(schema_path))

    schema = yaml.safe_load(schema_path.read_text())
    assert "/api/simulations/{run_id}" in schema["paths"]


def test_the_api_docs_page_loads_swagger_ui_from_our_own_static_files(client: Client) -> None:
    response = client.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    assert "cdn." not in html
