"""Simulation engine: streaming QLoRA training of LLMs, as pure functions over frozen data.

Imports nothing from Django; the service layer calls `parse_request`, `simulate`, `sweep`
and `result_to_json`.
"""

ENGINE_VERSION = "1.1.1"  # 1.1: refined mode's LoRA-aware backward; .1: decode memory + compute
