"""The seed's assumption checks all pass on the shipped data."""

from simulator.engine.checks.validate import run_checks


def test_every_assumption_check_passes():
    failed = [f"{c.name}: {c.detail}" for c in run_checks() if not c.passed]
    assert failed == []


def test_checks_cover_params_bits_lora_and_linearity():
    names = " ".join(c.name for c in run_checks())
    for topic in ("param total", "implied bits", "LoRA size", "activation linear"):
        assert topic in names
