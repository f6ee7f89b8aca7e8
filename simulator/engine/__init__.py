"""Simulation engine: streaming QLoRA training of LLMs, as pure functions over frozen data.

Imports nothing from Django; the service layer calls `parse_request`, `simulate`, `sweep`
and `result_to_json`.
"""

ENGINE_VERSION = "1.1.0"  # 1.1: refined mode's LoRA-aware backward (frozen_base)
