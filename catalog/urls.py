from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import SimpleRouter

from catalog import apis

app_name = "catalog"

router = SimpleRouter(trailing_slash=False)
for prefix, viewset in apis.KIND_VIEWSETS.items():
    router.register(f"parts/{prefix}", viewset, basename=prefix)
router.register("builds", apis.BuildViewSet, basename="build")

urlpatterns: list[URLPattern | URLResolver] = [
    path("parts", apis.PartListApi.as_view(), name="part-list"),
    path("parts/<slug:slug>/prices", apis.PartPriceHistoryApi.as_view(), name="part-prices"),
    path("prices", apis.PriceListApi.as_view(), name="price-list"),
    path("", include(router.urls)),
]
