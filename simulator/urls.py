from django.urls import path

from simulator import apis

app_name = "simulator"
urlpatterns = [
    path("simulate", apis.SimulateApi.as_view(), name="simulate"),
    path("rankings", apis.RankingListApi.as_view(), name="rankings"),
    path(
        "simulations/<uuid:run_id>",
        apis.SimulationRunDetailApi.as_view(),
        name="simulation-detail",
    ),
]
