"""With DEBUG off, as in production, a missing page and a failing view answer with the site's
own pages in its layout, under the Content-Security-Policy; an API path answers JSON."""

from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path

from planner_site.urls import handler500


def _fail(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


# This module is the URLconf of its tests: the site's, plus views that fail.
urlpatterns = [
    path("test-only/fail/", _fail),
    path("api/test-only/fail/", _fail),
    path("", include("planner_site.urls")),
]
__all__ = ["handler500", "urlpatterns"]

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


@pytest.fixture
def client(settings: Any) -> Client:
    """A client that gets the 500 page a browser would, not the view's exception."""
    settings.DEBUG = False
    return Client(raise_request_exception=False)


def test_a_failing_page_is_a_500_in_the_sites_layout(client: Client) -> None:
    response = client.get("/test-only/fail/")

    text = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong on our side" in text
    assert 'class="site-header"' in text
    assert "/static/frontend/site.css" in text
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert "RuntimeError" not in text  # nothing of the error leaks


def test_a_missing_page_is_a_404_in_the_sites_layout(client: Client) -> None:
    response = client.get("/no-such-page/")

    text = response.content.decode()
    assert response.status_code == 404
    assert "Page not found" in text
    assert "/no-such-page/" in text
    assert 'class="site-header"' in text
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_a_failing_api_path_answers_json(client: Client) -> None:
    response = client.get("/api/test-only/fail/")

    assert response.status_code == 500
    assert response.json() == {"detail": "Server error."}
