from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from planner_site import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    # Browsers and crawlers ask for /favicon.ico whatever the pages link.
    path("favicon.ico", views.favicon),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script as a file and frontend's copy of the page
    # links its stylesheet: the strict Content-Security-Policy needs no inline code.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", template_name="frontend/swagger_ui.html"
        ),
        name="api-docs",
    ),
    path("api/", include("catalog.urls")),
    path("api/", include("simulator.urls")),
    # [\s\S]: a path with an encoded newline is an API path too (JSON 404, not HTML).
    re_path(r"^api/(?P<path>[\s\S]*)$", views.api_not_found),
    path("", include("frontend.urls")),
]
# 404: Django's own handler renders templates/404.html in the site's layout (the API's 404s are
# JSON, above). 500: the site's page, or JSON for an API path.
handler500 = "planner_site.views.server_error"
