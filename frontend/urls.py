from django.urls import path

from frontend import serving_views, views

app_name = "frontend"
urlpatterns = [
    path("", views.home, name="home"),
    path("rankings/runs/<uuid:run_id>/", views.ranking_run, name="ranking-run"),
    path("serve/", serving_views.serve, name="serve"),
    path("serve/runs/<uuid:run_id>/", serving_views.serve_run, name="serve-run"),
    path("builds/", views.build_index, name="builds"),
    path("builds/candidate/", views.candidate_detail, name="candidate"),
    path("builds/candidate/serve/", serving_views.serve_candidate_detail, name="serve-candidate"),
    path("builds/<slug:slug>/", views.build_detail, name="build-detail"),
    path("builds/<slug:slug>/serve/", serving_views.serve_build_detail, name="serve-build"),
    path("compare/", views.compare, name="compare"),
    path("simulate/", views.simulate, name="simulate"),
    path("simulate/serve/", serving_views.serve_simulate, name="simulate-serve"),
    path("simulate/ranking/", views.simulate_ranking, name="simulate-ranking"),
    path("models/", views.custom_model, name="custom-model"),
    path("catalog/", views.catalog, name="catalog"),
    path("catalog/parts/<slug:slug>/", views.part_detail, name="part-detail"),
    path("api-guide/", views.api_guide, name="api-guide"),
    path("accuracy/", views.accuracy, name="accuracy"),
]
