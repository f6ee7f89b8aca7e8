"""Forms of the pages. They check types only: ranges and meaning are the engine's to judge,
and its `EngineInputError` is shown next to the field its dotted path names."""

import re
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.core.exceptions import ValidationError

from frontend.custom_models import (
    NAME_MAX_CHARS,
    PastedModel,
    custom_model_get,
    is_custom_slug,
    model_config_max_bytes,
    model_config_read,
    pasted_model,
)
from frontend.models import CustomModel
from simulator.engine import DEFAULT_MODE, QUANT_FORMATS, EngineInputError, json_path, model_slugs
from simulator.ranking import DEFAULT_SORT
from simulator.services.ranking_filters import BUYER_REGIONS, CASE_SIZES, MAX_POWER_W

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
    "hardware.gpu.fp8_tflops": "fp8_tflops",
    "hardware.gpu.bf16_sustained_tflops": "bf16_sustained_tflops",
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


# An API field's path inside an engine message ("… or hardware.gpu.fp8_tflops").
ENGINE_PATH = re.compile(r"\b(?:hardware|workload)\.[a-z0-9_.]*[a-z0-9_]")


def _form_field(form: forms.Form, path: str) -> str | None:
    """The form field an engine path names, if the form has it: its alias on the forms that
    name it so (the training form's `gpu_name`), else the path's last part (the serving
    form's `gpu`)."""
    names = (ENGINE_FIELD_ALIASES.get(path), path.rsplit(".", 1)[-1])
    return next((name for name in names if name in form.fields), None)


def _in_form_words(form: forms.Form, message: str) -> str:
    """The engine's message with each API path the form shows as a field named by its
    label, as the page says it ("Dense FP8 TFLOPS", not hardware.gpu.fp8_tflops)."""

    def label(match: re.Match[str]) -> str:
        name = _form_field(form, match.group(0))
        return f"“{form.fields[name].label}”" if name else match.group(0)

    return ENGINE_PATH.sub(label, message)


def engine_error_add(form: forms.Form, exc: EngineInputError) -> None:
    """Put the engine's message on the field its JSON path names, else on the form."""
    path = json_path(exc.field)
    name = _form_field(form, path)
    message = _in_form_words(form, exc.message)
    if name is not None:
        form.add_error(name, message)
    else:
        form.add_error(None, f"{path}: {message}")


class ModelField(forms.ChoiceField):
    """A shipped model's slug, or a stored custom model's (`custom:<16 hex>`): the view puts
    the one its query names among the choices when it is stored here."""

    def validate(self, value: Any) -> None:
        if value and is_custom_slug(str(value)) and not self.valid_value(value):
            raise ValidationError(
                f"No model {str(value)[:40]} is stored on this site: paste its config.json"
                " under “Your model”.",
                code="invalid_choice",
            )
        super().validate(value)


class ModelChoiceForm(forms.Form):
    """A form whose `model` is a shipped model or a stored custom one: the view passes the
    choices (the stored model its data names among them), and a custom model's config goes
    to the engine as the workload's `model_config`."""

    model = ModelField(label="Model")

    def __init__(
        self, *args: Any, model_choices: list[tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["model"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = model_choices or [(slug, slug) for slug in model_slugs()]
        # The stored model a `custom:` slug names: its config goes to the engine.
        self.custom_model: CustomModel | None = None

    def clean_model(self) -> str:
        slug: str = self.cleaned_data["model"]
        self.custom_model = custom_model_get(slug=slug)
        return slug

    def model_config_entry(self) -> dict[str, Any]:
        """The workload's `model_config` entry: the stored config, or nothing."""
        if self.custom_model is None:
            return {}
        return {"model_config": self.custom_model.config}


class WorkloadForm(ModelChoiceForm):
    quant = forms.ChoiceField(label="Quantization", choices=quant_choices)
    seq_len = forms.IntegerField(label="Sequence length (tokens)")
    tokens = forms.IntegerField(label="Token target", help_text="tokens to train on")

    def workload(self) -> dict[str, Any]:
        data = self.cleaned_data
        workload = {"kind": "train", **{k: data[k] for k in ("model", "quant", "seq_len")}}
        workload |= self.model_config_entry()
        workload["tokens"] = data["tokens"]
        if "mode" in data:
            workload["mode"] = data["mode"]
        return workload


class ModelConfigField(forms.CharField):
    """A pasted config.json: its JSON object, or None when nothing was pasted."""

    widget = forms.Textarea

    def clean(self, value: Any) -> dict[str, Any] | None:
        text = self.to_python(value)
        self.validate(text)
        return model_config_read(text) if text else None


class PastedModelForm(forms.Form):
    """A model brought as a Hugging Face config.json, pasted or uploaded, with a name."""

    model_name = forms.CharField(
        label="Model name", max_length=NAME_MAX_CHARS, required=False,
        help_text="empty: the config's own name",
    )  # fmt: skip
    model_config = ModelConfigField(
        label="config.json", required=False,
        # 32 columns fit a phone's width; the box can be dragged wider.
        widget=forms.Textarea(attrs={"rows": 8, "cols": 32, "spellcheck": "false",
                                     "autocomplete": "off",
                                     "placeholder": '{"hidden_size": 4096, …}'}),
        help_text="a Hugging Face model's config.json, pasted",
    )  # fmt: skip
    model_file = forms.FileField(
        label="…or its file", required=False,
        widget=forms.FileInput(attrs={"accept": ".json,application/json"}),
    )  # fmt: skip

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pasted: PastedModel | None = None

    def pasted(self) -> PastedModel | None:
        """The model brought on the form, checked by the engine; None when none was brought
        or it was refused (the form's other fields may still be wrong)."""
        if self.is_bound:
            self.is_valid()  # runs clean(), which reads the config.json
        return self._pasted

    def clean_model_file(self) -> dict[str, Any] | None:
        upload = self.cleaned_data.get("model_file")
        if not upload:
            return None
        limit = model_config_max_bytes()
        if upload.size is not None and upload.size > limit:
            raise ValidationError(
                f"model_config: the file is {upload.size:,} bytes; at most {limit:,} are taken."
            )
        try:
            text = upload.read(limit + 1).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValidationError("model_config: the file is not UTF-8 text.") from None
        return model_config_read(text)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        pasted, uploaded = data.get("model_config"), data.get("model_file")
        if pasted is not None and uploaded is not None:
            self.add_error("model_config", "Paste a config.json or upload its file, not both.")
        elif pasted is not None or uploaded is not None:
            field = "model_config" if pasted is not None else "model_file"
            config = pasted if pasted is not None else uploaded
            assert config is not None
            try:
                self._pasted = pasted_model(config=config, name=data.get("model_name") or "")
            except ValidationError as exc:
                self.add_error(field, exc)
        return data


class CustomModelForm(PastedModelForm):
    """A model brought on a page whose own form is a GET (rankings, builds, compare): stored,
    then that page again, at `next`, with the model selected."""

    next = forms.CharField(required=False, widget=forms.HiddenInput, max_length=2000)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors and self._pasted is None:
            self.add_error("model_config", "Paste a config.json or pick its file.")
        return data


class RankingFiltersForm(forms.Form):
    """Which prices a ranking counts and which builds the buyer can take: the training and
    serving rankings' shared boxes (RankingFilters)."""

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
    new_only = forms.BooleanField(
        label="New parts only",
        required=False,
        help_text="count no used or refurbished offers",
    )
    region = forms.ChoiceField(
        label="Prices from",
        required=False,
        choices=[("", "any region"), *BUYER_REGIONS],
        help_text="offers in this region (and those that ship worldwide)",
    )
    power_w_max = forms.IntegerField(
        label="Power limit (W)",
        required=False,
        min_value=1,
        max_value=MAX_POWER_W,
        help_text="GPU board power + CPU TDP, or a whole system's maximum",
    )
    case_size_max = forms.ChoiceField(
        label="Largest enclosure",
        required=False,
        choices=[("", "any size"), *CASE_SIZES],
    )


class RankingFilterForm(WorkloadForm, RankingFiltersForm):
    budget = forms.FloatField(label="Budget (USD)", required=False, min_value=1)
    sort = forms.ChoiceField(label="Sort by", choices=TABLE_SORTS, initial=DEFAULT_SORT)


class BuildWorkloadForm(WorkloadForm):
    mode = forms.ChoiceField(label="Simulation mode", choices=MODE_CHOICES)


COMPARE_MIN, COMPARE_MAX = 2, 4
# A candidate's parts as its ranking row links them: up to 16 `part_id:quantity` pairs.
PARTS_LINE = re.compile(r"\d{1,9}(:\d{1,2})?(,\d{1,9}(:\d{1,2})?){0,15}")


class PartLinesField(forms.Field):
    """Candidate builds as `parts` parameters, each `part_id:quantity,…` (a ranking row's
    link), repeated once per build; kept as the strings, parsed by the view."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[str]:
        if not value:
            return []
        values = value if isinstance(value, list | tuple) else [value]
        lines = [str(v).strip() for v in values if str(v).strip()]
        for line in lines:
            if not PARTS_LINE.fullmatch(line):
                raise forms.ValidationError(
                    f"{line[:40]!r} is not a list of part_id:quantity pairs."
                )
        return lines


class CompareForm(BuildWorkloadForm):
    """2 to 4 builds side by side: catalog builds by slug and ranked candidates by their
    parts, in any mix (the compare tray's link, or a shared URL)."""

    builds = forms.MultipleChoiceField(
        label="Catalog builds", widget=forms.CheckboxSelectMultiple, required=False
    )
    parts = PartLinesField(required=False)

    def __init__(self, *args: Any, build_choices: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["builds"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = build_choices

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        count = len(data.get("builds") or []) + len(data.get("parts") or [])
        if "builds" in data and "parts" in data and not COMPARE_MIN <= count <= COMPARE_MAX:
            self.add_error(
                "builds",
                f"Pick {COMPARE_MIN} to {COMPARE_MAX} builds (catalog builds and builds from"
                f" the compare tray together); {count} given.",
            )
        return data


class CustomSimulationForm(BuildWorkloadForm, PastedModelForm):
    gpu_name = forms.CharField(label="GPU name", max_length=60)
    vram_gb = forms.FloatField(label="VRAM per GPU (GB)")
    bf16_tflops = forms.FloatField(label="Dense BF16 TFLOPS")
    bf16_sustained_tflops = forms.FloatField(
        label="Sustained BF16 matmul TFLOPS",
        required=False,
        help_text="measured; refined mode trains at it. Empty: a known GPU's measurement, "
        "else the median measured share of a peak",
    )
    pcie_gbps = forms.FloatField(label="PCIe per GPU (GB/s)")
    fp4 = forms.BooleanField(label="FP4 tensor cores (NVFP4)", required=False)
    fp8_tflops = forms.FloatField(
        label="Dense FP8 TFLOPS",
        required=False,
        help_text="empty: no FP8 tensor cores (quantization FP8 needs them)",
    )
    gpu_count = forms.IntegerField(label="GPUs")
    nvme_gbps = forms.FloatField(label="NVMe read (GB/s)")
    ram_gb = forms.FloatField(label="System RAM (GB)")
    pinned_gb = forms.FloatField(
        label="Pinned RAM (GB)", required=False, help_text="empty: RAM minus the usual reserve"
    )
    utilization = forms.FloatField(
        label="GPU utilization (0–1)",
        help_text="refined: share of the sustained matmul rate; reference: of the peak",
    )
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
        for key in ("fp8_tflops", "bf16_sustained_tflops"):
            if data[key] is not None:
                gpu[key] = data[key]
        hardware = {"gpu": gpu, **{k: data[k] for k in ("gpu_count", "nvme_gbps", "ram_gb")}}
        if data["pinned_gb"] is not None:
            hardware["pinned_gb"] = data["pinned_gb"]
        return hardware

    def share_query(self) -> str:
        """This simulation as the page's query: a GET of it shows the same result (a model
        brought by its config.json is named by its stored slug)."""
        if not self.is_valid():
            return ""
        pasted = set(PastedModelForm.base_fields)
        params = {}
        for name, value in self.cleaned_data.items():
            if name in pasted or value is None or value is False:
                continue
            params[name] = "on" if value is True else str(value)
        return urlencode(params)


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


class RankingViewForm(RankingFiltersForm):
    """How a finished ranking is shown: within a budget, in an order, with the filters."""

    budget = forms.FloatField(required=False, min_value=1)
    sort = forms.ChoiceField(choices=TABLE_SORTS, required=False)
