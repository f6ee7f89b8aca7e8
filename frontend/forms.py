"""Forms of the pages. They check types only: ranges and meaning are the engine's to judge,
and its `EngineInputError` is shown next to the field its dotted path names."""

from typing import Any

from django import forms

from simulator.engine import DEFAULT_MODE, QUANT_FORMATS, EngineInputError, json_path, model_slugs
from simulator.ranking import DEFAULT_SORT

WORKLOAD_DEFAULTS: dict[str, Any] = {
    "model": "glm-4.7",
    "quant": "NF4d+NF2e",
    "seq_len": 1024,
    "tokens": 50_000_000,
    "mode": DEFAULT_MODE,
}
MODE_CHOICES = (
    ("reference", "reference (seed 000's equations)"),
    ("refined", "refined (layer shapes, timeline, …)"),
)
# Columns the rankings table sorts by; the first three are the ranking service's own keys.
TABLE_SORTS = (
    ("usd_per_tokens_per_s", "$ per tokens/s"),
    ("hours", "hours for the target"),
    ("price", "price"),
    ("tokens_per_s", "tokens/s (fastest first)"),
    ("bottleneck", "bottleneck"),
)
# Engine paths whose last part is not the form field's name.
ENGINE_FIELD_ALIASES = {
    "hardware.gpu": "gpu_name",
    "hardware.gpu.name": "gpu_name",
    "hardware.gpu.fp4": "fp4",
    "build_id": "builds",
    "parts": "builds",
}


def quant_choices() -> list[tuple[str, str]]:
    return [(name, f"{name} — {fmt.description}") for name, fmt in QUANT_FORMATS.items()]


def with_defaults(data: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """The query's values over the defaults, so an empty query shows the default view."""
    merged: dict[str, Any] = {key: str(value) for key, value in defaults.items()}
    for key in data:
        values = data.getlist(key)
        merged[key] = values if len(values) > 1 or key == "builds" else values[0]
    return merged


def engine_error_add(form: forms.Form, exc: EngineInputError) -> None:
    """Put the engine's message on the field its JSON path names, else on the form."""
    path = json_path(exc.field)
    name = ENGINE_FIELD_ALIASES.get(path, path.rsplit(".", 1)[-1])
    if name in form.fields:
        form.add_error(name, exc.message)
    else:
        form.add_error(None, f"{path}: {exc.message}")


class WorkloadForm(forms.Form):
    model = forms.ChoiceField(label="Model")
    quant = forms.ChoiceField(label="Quantization", choices=quant_choices)
    seq_len = forms.IntegerField(label="Sequence length (tokens)")
    tokens = forms.IntegerField(label="Token target", help_text="tokens to train on")

    def __init__(
        self, *args: Any, model_choices: list[tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["model"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = model_choices or [(slug, slug) for slug in model_slugs()]

    def workload(self) -> dict[str, Any]:
        data = self.cleaned_data
        workload = {"kind": "train", **{k: data[k] for k in ("model", "quant", "seq_len")}}
        workload["tokens"] = data["tokens"]
        if "mode" in data:
            workload["mode"] = data["mode"]
        return workload


class RankingFilterForm(WorkloadForm):
    budget = forms.FloatField(label="Budget (USD)", required=False, min_value=1)
    sort = forms.ChoiceField(label="Sort by", choices=TABLE_SORTS, initial=DEFAULT_SORT)


class BuildWorkloadForm(WorkloadForm):
    mode = forms.ChoiceField(label="Simulation mode", choices=MODE_CHOICES)


class CompareForm(BuildWorkloadForm):
    builds = forms.MultipleChoiceField(
        label="Builds to compare (2 to 4)", widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, build_choices: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["builds"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = build_choices

    def clean_builds(self) -> list[str]:
        builds: list[str] = self.cleaned_data["builds"]
        if not 2 <= len(builds) <= 4:
            raise forms.ValidationError("Pick 2 to 4 builds.")
        return builds


class CustomSimulationForm(BuildWorkloadForm):
    gpu_name = forms.CharField(label="GPU name", max_length=60)
    vram_gb = forms.FloatField(label="VRAM per GPU (GB)")
    bf16_tflops = forms.FloatField(label="Dense BF16 TFLOPS")
    pcie_gbps = forms.FloatField(label="PCIe per GPU (GB/s)")
    fp4 = forms.BooleanField(label="FP4 tensor cores (NVFP4)", required=False)
    gpu_count = forms.IntegerField(label="GPUs")
    nvme_gbps = forms.FloatField(label="NVMe read (GB/s)")
    ram_gb = forms.FloatField(label="System RAM (GB)")
    pinned_gb = forms.FloatField(
        label="Pinned RAM (GB)", required=False, help_text="empty: RAM minus the usual reserve"
    )
    utilization = forms.FloatField(label="GPU utilization (0–1)")
    lora_rank = forms.IntegerField(label="LoRA rank")

    def workload(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            **super().workload(),
            "utilization": data["utilization"],
            "lora_rank": data["lora_rank"],
        }

    def hardware(self) -> dict[str, Any]:
        data = self.cleaned_data
        gpu = {"name": data["gpu_name"], "fp4": data["fp4"]}
        gpu |= {key: data[key] for key in ("vram_gb", "bf16_tflops", "pcie_gbps")}
        hardware = {"gpu": gpu, **{k: data[k] for k in ("gpu_count", "nvme_gbps", "ram_gb")}}
        if data["pinned_gb"] is not None:
            hardware["pinned_gb"] = data["pinned_gb"]
        return hardware


CUSTOM_DEFAULTS: dict[str, Any] = {
    **WORKLOAD_DEFAULTS,
    "gpu_name": "What-if 48 GB GPU",
    "vram_gb": 48,
    "bf16_tflops": 200,
    "pcie_gbps": 44,
    "gpu_count": 1,
    "nvme_gbps": 12,
    "ram_gb": 64,
    "utilization": 0.7,
    "lora_rank": 64,
}


class CustomRankingForm(WorkloadForm):
    budget_usd = forms.FloatField(label="Budget (USD)", required=False)
    gpu_count_max = forms.IntegerField(label="At most this many GPUs")

    def ranking_body(self) -> dict[str, Any]:
        data = self.cleaned_data
        ranking = {"gpu_count_max": data["gpu_count_max"]}
        if data["budget_usd"] is not None:
            ranking["budget_usd"] = data["budget_usd"]
        return {"workload": self.workload(), "ranking": ranking}


class RankingViewForm(forms.Form):
    """How a finished ranking is shown: within a budget, in an order."""

    budget = forms.FloatField(required=False, min_value=1)
    sort = forms.ChoiceField(choices=TABLE_SORTS, required=False)
