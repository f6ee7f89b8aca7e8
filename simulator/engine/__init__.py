"""Simulation engine: streaming QLoRA training of LLMs, as pure functions over frozen data.

Imports nothing from Django; the service layer calls `parse_request`, `simulate`, `sweep`
and `result_to_json`.
"""

# 1.1: refined mode's LoRA-aware backward; .1: decode memory + compute; .2: Metal Marlin
# derived from seed 001's kernel table; .3: fitted routing pool fraction in batched MoE decode.
ENGINE_VERSION = "1.1.3"
