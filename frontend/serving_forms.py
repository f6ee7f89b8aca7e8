"""The serving page's filters: an inference workload (model, weight format, context,
placement) and the view of its ranking (budget, order). Types only; the engine judges
ranges and meaning, and its EngineInputError lands on the field it names."""

from typing import Any

from django import forms

from simulator.engine import AUTO, PLACEMENTS, WEIGHT_TYPES, model_slugs
from simulator.ranking import DEFAULT_INFER_SORT

SERVE_DEFAULTS: dict[str, Any] = {
    "model": "glm-4.7-flash",
    "quant": "Q4_K_M",
    "context": 32768,
    "placement": AUTO,
    "sort": DEFAULT_INFER_SORT,
}
PLACEMENT_CHOICES = (
    (AUTO, "auto (each build's fastest)"),
    *((p, {"gpu": "all on GPUs", "hybrid": "hybrid: experts in CPU RAM",
           "cpu": "CPU only", "unified": "unified memory (Apple)"}.get(p, p))
      for p in PLACEMENTS),
)  # fmt: skip
SERVE_SORTS = (
    ("usd_per_decode_tokens_per_s", "$ per decode tokens/s"),
    ("price", "price"),
    ("decode_tokens_per_s", "decode tokens/s (fastest first)"),
    ("prefill_tokens_per_s", "prefill tokens/s (fastest first)"),
    ("max_context", "largest context (first)"),
)


class ServeFilterForm(forms.Form):
    model = forms.ChoiceField(label="Model")
    quant = forms.ChoiceField(
        label="Weight format",
        choices=[(name, f"{name} ({t.bits_per_weight:g} bits/weight)")
                 for name, t in WEIGHT_TYPES.items()],
    )  # fmt: skip
    context = forms.IntegerField(label="Context (tokens)", help_text="KV cache held per request")
    placement = forms.ChoiceField(label="Placement", choices=PLACEMENT_CHOICES)
    budget = forms.FloatField(label="Budget (USD)", required=False, min_value=1)
    sort = forms.ChoiceField(label="Sort by", choices=SERVE_SORTS)
    include_estimates = forms.BooleanField(
        label="Include planner estimates",
        required=False,
        help_text="price parts that have no published price with the planner's estimate "
        "(such builds are marked)",
    )
    exclude_stale = forms.BooleanField(
        label="Leave out stale prices",
        required=False,
        help_text="prices older than the stale age leave their builds unranked",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["model"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(slug, slug) for slug in model_slugs()]

    def workload(self) -> dict[str, Any]:
        data = self.cleaned_data
        keys = ("model", "quant", "context", "placement")
        return {"kind": "infer", **{key: data[key] for key in keys}}
