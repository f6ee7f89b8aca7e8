"""Project-level views: health, and the API's JSON 404 and 500."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.templatetags.static import static
from django.views import defaults

from planner_site.health import UP, health_check


def healthz(request: HttpRequest) -> JsonResponse:
    components = health_check()
    down = [name for name, state in components.items() if state.status != UP]
    body = {
        "status": "ok" if not down else "unavailable",
        "down": down,
        "components": {
            name: {"status": state.status, "detail": state.detail}
            for name, state in components.items()
        },
    }
    if not down:
        return JsonResponse(body, status=200)
    response = JsonResponse(body, status=503)
    response["Retry-After"] = str(settings.HEALTHZ_RETRY_AFTER_S)
    return response


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers and crawlers ask for /favicon.ico whatever the pages link."""
    return HttpResponsePermanentRedirect(static("frontend/favicon.svg"))


def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    return JsonResponse({"detail": f"No API endpoint at /api/{path}."}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: JSON for the API, as its other errors are; the site's 500 page elsewhere,
    which Django renders with no request context (whatever failed may fail again)."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)
