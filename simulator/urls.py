from django.urls import path

from simulator import apis, apis_accuracy

app_name = "simulator"
urlpatterns = [
    path("simulate", apis.SimulateApi.as_view(), name="simulate"),
    path("rankings", apis.RankingListApi.as_view(), name="rankings"),
    path(
        "simulations/<uuid:run_id>",
        apis.SimulationRunDetailApi.as_view(),
        name="simulation-detail",
    ),
    path("accuracy", apis_accuracy.AccuracyApi.as_view(), name="accuracy"),
    path("measurements", apis_accuracy.MeasurementCreateApi.as_view(), name="measurement-create"),
]
