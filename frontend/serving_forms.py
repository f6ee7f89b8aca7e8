"""The serving page's filters: an inference workload (model, weight format, context,
placement) and the view of its ranking (budget, order). Types only; the engine judges
ranges and meaning, and its EngineInputError lands on the field it names."""

from typing import Any
from urllib.parse import urlencode

from django import forms

from frontend.forms import ModelChoiceForm, RankingFiltersForm
from simulator.engine import (
    AUTO,
    PLACEMENTS,
    WEIGHT_TYPES,
    Cpu,
    Device,
    Gpu,
    System,
    devices,
)
from simulator.ranking import DEFAULT_INFER_SORT

SERVE_DEFAULTS: dict[str, Any] = {
    "model": "glm-4.7-flash",
    "quant": "Q4_K_M",
    "context": 32768,
    "placement": AUTO,
    "sort": DEFAULT_INFER_SORT,
}
# Serving on the Simulate page: a 24 GB GPU beside a 12-channel EPYC, a MoE model.
SIMULATE_DEFAULTS: dict[str, Any] = {
    "model": "glm-4.7-flash",
    "quant": "Q4_K_M",
    "context": 32768,
    "placement": AUTO,
    "gpu": "RTX 4090",
    "gpu_count": 1,
    "cpu": "EPYC 9124",
    "ram_gb": 128,
}
PLACEMENT_CHOICES = (
    (AUTO, "auto (each build's fastest)"),
    *((p, {"gpu": "GPUs (whole layers in CPU RAM if short)",
           "hybrid": "hybrid: experts in CPU RAM",
           "cpu": "CPU only", "unified": "unified memory (Apple)"}.get(p, p))
      for p in PLACEMENTS),
)  # fmt: skip
WORKLOAD_KEYS = ("model", "quant", "context", "placement")
# Sent to the engine only when filled in: offload and layers for one build, and a serving run.
OPTIONAL_WORKLOAD_KEYS = ("offload_from_layer", "gpu_layers", "batch", "prompt_tokens",
                          "output_tokens", "request_rate_per_s", "requests")  # fmt: skip
SERVE_SORTS = (
    ("usd_per_decode_tokens_per_s", "$ per decode tokens/s"),
    ("price", "price"),
    ("decode_tokens_per_s", "decode tokens/s (fastest first)"),
    ("prefill_tokens_per_s", "prefill tokens/s (fastest first)"),
    ("max_context", "largest context (first)"),
)


class ServeWorkloadForm(ModelChoiceForm):
    """An inference workload: what the serving pages simulate (a shipped model, or one
    brought as a config.json and stored, named by its `custom:` slug)."""

    quant = forms.ChoiceField(
        label="Weight format",
        choices=[(name, f"{name} ({t.bits_per_weight:g} bits/weight)")
                 for name, t in WEIGHT_TYPES.items()],
    )  # fmt: skip
    context = forms.IntegerField(label="Context (tokens)", help_text="KV cache held per request")
    placement = forms.ChoiceField(label="Placement", choices=PLACEMENT_CHOICES)
    offload_from_layer = forms.IntegerField(
        label="Experts in CPU RAM from layer", required=False,
        help_text="hybrid only; empty: every MoE layer's experts (auto: as many on GPU as fit)",
    )  # fmt: skip
    gpu_layers = forms.IntegerField(
        label="Layers on the GPUs", required=False,
        help_text="placement GPU (llama.cpp -ngl N is N − 1 layers); the first layers sit in "
        "CPU RAM; empty: every layer, or as many as fit",
    )  # fmt: skip
    # A serving run (docs/model.md, "Serving runs"): empty output tokens, none.
    batch = forms.IntegerField(
        label="Requests in flight at most", required=False, min_value=1,
        help_text="slots (llama-server -np, vLLM max_num_seqs), each holding the context",
    )  # fmt: skip
    prompt_tokens = forms.IntegerField(label="Prompt tokens", required=False, min_value=1)
    output_tokens = forms.IntegerField(
        label="Output tokens a request", required=False, min_value=1,
        help_text="a serving run: latency and throughput of many requests; empty: none",
    )  # fmt: skip
    request_rate_per_s = forms.FloatField(
        label="Requests a second", required=False,
        help_text="empty: every slot kept busy",
    )  # fmt: skip
    requests = forms.IntegerField(
        label="Requests in the run", required=False, min_value=1,
        help_text="empty: an endless stream",
    )  # fmt: skip

    def workload(self) -> dict[str, Any]:
        """The workload; of the optional fields, those filled in (the engine checks them: a
        rate without output tokens lands on its field)."""
        data = self.cleaned_data
        workload = {"kind": "infer", **{key: data[key] for key in WORKLOAD_KEYS}}
        workload |= self.model_config_entry()
        for key in OPTIONAL_WORKLOAD_KEYS:
            if data.get(key) is not None:
                workload[key] = data[key]
        return workload


class ServeFilterForm(ServeWorkloadForm, RankingFiltersForm):
    """The serving ranking's filters: each build in its own placement, so no offload layer;
    ranked by one request's speeds, so no serving run."""

    offload_from_layer = None  # type: ignore[assignment]
    gpu_layers = None  # type: ignore[assignment]
    batch = None  # type: ignore[assignment]
    prompt_tokens = None  # type: ignore[assignment]
    output_tokens = None  # type: ignore[assignment]
    request_rate_per_s = None  # type: ignore[assignment]
    requests = None  # type: ignore[assignment]
    budget = forms.FloatField(label="Budget (USD)", required=False, min_value=1)
    sort = forms.ChoiceField(label="Sort by", choices=SERVE_SORTS)


def _device_choices(kind: type[Device], none: str) -> list[tuple[str, str]]:
    return [("", none), *((d.name, d.name) for d in devices(kind))]


class ServeSimulationForm(ServeWorkloadForm):
    """A serving workload on hardware described by its parts' names in the device table
    (the API's `hardware` section: a GPU and how many, a CPU and its RAM, or a whole
    system with unified memory)."""

    gpu = forms.ChoiceField(label="GPU", required=False)
    gpu_count = forms.IntegerField(label="GPUs", required=False)
    cpu = forms.ChoiceField(label="CPU", required=False)
    ram_gb = forms.FloatField(label="System RAM (GB)", required=False)
    unified = forms.ChoiceField(
        label="Whole system (unified memory)", required=False,
        help_text="Apple silicon, DGX Spark, Strix Halo: leave the GPU and CPU empty",
    )  # fmt: skip

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = {"gpu": (Gpu, "no GPU"), "cpu": (Cpu, "no CPU"), "unified": (System, "none")}
        for name, (kind, none) in choices.items():
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)
            field.choices = _device_choices(kind, none)

    def hardware(self) -> dict[str, Any]:
        data = self.cleaned_data
        hardware: dict[str, Any] = {k: data[k] for k in ("gpu", "cpu", "unified") if data[k]}
        if data["gpu"] and data["gpu_count"] is not None:
            hardware["gpu_count"] = data["gpu_count"]
        if data["ram_gb"] is not None:
            hardware["ram_gb"] = data["ram_gb"]
        return hardware

    def share_query(self) -> str:
        """This simulation as the page's query: a GET of it shows the same result."""
        if not self.is_valid():
            return ""
        params = {k: v for k, v in self.cleaned_data.items() if v not in (None, "")}
        return urlencode(params)
