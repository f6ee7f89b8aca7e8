from rest_framework.throttling import AnonRateThrottle


class SimulateAnonThrottle(AnonRateThrottle):
    """Anonymous clients' POST /api/simulate budget (SIMULATE_ANON_RATE)."""

    scope = "simulate_anon"
