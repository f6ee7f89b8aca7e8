"""Calibration on a lent GPU: what the engine's training and streaming rules assume, measured.

Run on a machine with a CUDA GPU, PyTorch, transformers and PEFT (the device machine's image
has them); nothing in the planner's tests or CI runs it:

    python benchmarks/calibrate_gpu.py --out calibration.json

It measures, at the shapes of models the planner ships (`simulator/engine/data/models`):

- BF16 matrix products at each projection of a decoder layer, by tokens per product, and a
  square 8192³ product as the card's practical ceiling;
- NF4 dequantization (4-bit codes, one absmax per 64 weights, as bitsandbytes stores QLoRA's
  base weights) to BF16, and dequantize + matmul at B × 1024 tokens (seed 000's "NF4 dequant
  + matmul benchmark" on this card);
- host-to-device and device-to-host copies, pinned and pageable;
- forward and backward of one decoder layer with LoRA adapters (PEFT);
- whole LoRA training steps (PEFT on transformers, AdamW on the adapters, SDPA attention), with
  and without activation checkpointing, and a QLoRA step whose frozen weights are NF4 codes
  dequantized at each use.

The NF4 kernels here are torch.compile'd PyTorch (bitsandbytes is not on the device image):
one fused pass that reads the codes and scales and writes BF16 weights, the same memory
traffic as bitsandbytes' dequantize kernel, not its code. Each figure is written as soon as it
is measured, so a run cut short keeps what it finished. `rows` holds the training figures in
the corpus schema (`simulator/engine/data/measurements`), with the machine and date.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import math
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn

MODELS_DIR = Path(__file__).resolve().parent.parent / "simulator/engine/data/models"
NF4_BLOCK = 64  # weights per absmax (bitsandbytes' QLoRA blocksize)
# The 16 NF4 levels (QLoRA paper, appendix E; bitsandbytes functional.py get_4bit_type("nf4")).
NF4_LEVELS = (
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
)  # fmt: skip
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
MIN_TIMED_S = 0.2  # each timed loop runs at least this long
# The script's logic can be tried without a GPU (--quick on a CPU); its figures mean nothing there.
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def model_config(key: str) -> dict[str, Any]:
    """The shipped config (a verbatim copy of the model's config.json), its keys without '_'."""
    raw = json.loads((MODELS_DIR / f"{key}.json").read_text())
    return {k: v for k, v in raw.items() if not k.startswith("_")}


def synchronize() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def device_seconds(fn: Callable[[], object], warmup: int = 3) -> float:
    """Mean seconds of fn on the GPU: warm-ups, then as many calls as fill MIN_TIMED_S, timed
    from the host between synchronizations (each loop is long against their cost)."""
    for _ in range(warmup):
        fn()
    synchronize()
    start = time.perf_counter()
    fn()
    synchronize()
    once_s = max(time.perf_counter() - start, 1e-6)
    calls = max(3, min(1000, math.ceil(MIN_TIMED_S / once_s)))
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    synchronize()
    return (time.perf_counter() - start) / calls


class Report:
    """The JSON written after every section, so a run cut short keeps what it measured."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {"sections": {}, "errors": {}, "rows": []}

    def save(self) -> None:
        self.path.write_text(json.dumps(self.data, indent=1))

    def section(self, name: str, run: Callable[[], Any]) -> None:
        started = time.monotonic()
        try:
            self.data["sections"][name] = run()
        except Exception:  # a failed section is recorded; the others still run
            self.data["errors"][name] = traceback.format_exc()
            print(self.data["errors"][name], file=sys.stderr)
        gc.collect()  # the section's model and optimizer, before the next one allocates
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
        print(f"{name}: {time.monotonic() - started:.1f} s", flush=True)
        self.save()


def machine() -> dict[str, Any]:
    import peft
    import transformers

    common = {
        "date": dt.datetime.now(dt.UTC).date().isoformat(),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
    }
    if DEVICE != "cuda":
        return {**common, "gpu": "none (CPU trial run)"}
    props = torch.cuda.get_device_properties(0)
    query = "name,driver_version,memory.total,power.limit,clocks.max.sm,clocks.max.mem"
    try:
        smi = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30, check=False,
        ).stdout.strip()  # fmt: skip
    except OSError:
        smi = ""
    return {
        **common,
        "gpu": props.name,
        "compute_capability": f"{props.major}.{props.minor}",
        "multiprocessors": props.multi_processor_count,
        "memory_gib": round(props.total_memory / 2**30, 1),
        "nvidia_smi": f"{query}: {smi}",
    }


def layer_shapes(cfg: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """(in, out) features of each projection of one decoder layer."""
    hidden, inter = cfg["hidden_size"], cfg["intermediate_size"]
    head_dim = cfg.get("head_dim") or hidden // cfg["num_attention_heads"]
    q, kv = cfg["num_attention_heads"] * head_dim, cfg["num_key_value_heads"] * head_dim
    return {
        "q_proj": (hidden, q), "k_proj": (hidden, kv), "v_proj": (hidden, kv),
        "o_proj": (q, hidden), "gate_proj": (hidden, inter), "up_proj": (hidden, inter),
        "down_proj": (inter, hidden),
    }  # fmt: skip


def matmul_bf16(key: str, token_counts: tuple[int, ...], square: int) -> dict[str, Any]:
    """y = x @ W.T for each projection: TFLOP/s, and the weight bytes read per second (what
    bounds a product of few tokens)."""
    shapes = layer_shapes(model_config(key))
    out: dict[str, Any] = {"model": key, "by_projection": []}
    for name, (k, n) in shapes.items():
        weight = torch.randn(n, k, device=DEVICE, dtype=torch.bfloat16)
        for m in token_counts:
            x = torch.randn(m, k, device=DEVICE, dtype=torch.bfloat16)
            s = device_seconds(lambda x=x, weight=weight: x @ weight.T)
            out["by_projection"].append({
                "projection": name, "tokens": m, "in_features": k, "out_features": n,
                "seconds": s, "tflop_per_s": 2 * m * k * n / s / 1e12,
                "weight_gb_per_s": 2 * k * n / s / 1e9,
            })  # fmt: skip
    a = torch.randn(square, square, device=DEVICE, dtype=torch.bfloat16)
    b = torch.randn(square, square, device=DEVICE, dtype=torch.bfloat16)
    s = device_seconds(lambda: a @ b)
    out[f"square_{square}_tflop_per_s"] = 2 * square**3 / s / 1e12
    return out


def nf4_quantize(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Codes (two per byte) and one absmax per NF4_BLOCK weights, as QLoRA stores them."""
    blocks = weight.float().reshape(-1, NF4_BLOCK)
    absmax = blocks.abs().amax(dim=1).clamp_min(1e-12)
    levels = torch.tensor(NF4_LEVELS, device=weight.device)
    codes = (blocks / absmax[:, None]).unsqueeze(-1).sub(levels).abs().argmin(-1).to(torch.uint8)
    codes = codes.reshape(-1, 2)
    return (codes[:, 0] << 4 | codes[:, 1]).contiguous(), absmax


def _nf4_dequantize(packed: torch.Tensor, absmax: torch.Tensor, shape: torch.Size) -> torch.Tensor:
    levels = torch.tensor(NF4_LEVELS, device=packed.device, dtype=torch.float32)
    codes = torch.stack((packed >> 4, packed & 15), dim=-1).reshape(-1, NF4_BLOCK).long()
    return (levels[codes] * absmax[:, None]).to(torch.bfloat16).reshape(shape)


nf4_dequantize: Callable[[torch.Tensor, torch.Tensor, torch.Size], torch.Tensor] = _nf4_dequantize


def nf4_dequant(key: str, batches: tuple[int, ...]) -> dict[str, Any]:
    """Dequantization of each projection's weight, as GB/s of bytes read and written, and
    dequantize + matmul at B × 1024 tokens against the BF16 product alone (seed 000's table)."""
    shapes = layer_shapes(model_config(key))
    out: dict[str, Any] = {"model": key, "compiled": nf4_dequantize is not _nf4_dequantize}
    rows = []
    for name, (k, n) in shapes.items():
        weight = torch.randn(n, k, device=DEVICE, dtype=torch.bfloat16) * 0.02
        packed, absmax = nf4_quantize(weight)
        shape = weight.shape
        s = device_seconds(lambda p=packed, a=absmax, sh=shape: nf4_dequantize(p, a, sh))
        moved = packed.numel() + absmax.numel() * 4 + weight.numel() * 2
        row: dict[str, Any] = {
            "projection": name, "weights": weight.numel(),
            "dequant_seconds": s, "dequant_gb_per_s": moved / s / 1e9,
        }  # fmt: skip
        for b in batches:
            x = torch.randn(b * 1024, k, device=DEVICE, dtype=torch.bfloat16)
            plain = device_seconds(lambda x=x, w=weight: x @ w.T)
            both = device_seconds(
                lambda x=x, p=packed, a=absmax, sh=shape: x @ nf4_dequantize(p, a, sh).T
            )
            row[f"batch_{b}"] = {"tokens": b * 1024, "matmul_seconds": plain,
                                 "dequant_matmul_seconds": both,
                                 "tflop_per_s": 2 * b * 1024 * k * n / both / 1e12,
                                 "utilization_vs_bf16": plain / both}  # fmt: skip
        rows.append(row)
    out["by_projection"] = rows
    return out


def copies(size: int) -> dict[str, Any]:
    """Host ↔ device copies of `size` bytes: pinned and pageable host memory."""
    device = torch.empty(size, dtype=torch.uint8, device=DEVICE)
    pinned = torch.empty(size, dtype=torch.uint8, pin_memory=DEVICE == "cuda")
    pageable = torch.empty(size, dtype=torch.uint8)
    pageable.fill_(1)
    pinned.fill_(1)
    out = {}
    for label, host in (("pinned", pinned), ("pageable", pageable)):
        h2d = device_seconds(lambda host=host: device.copy_(host, non_blocking=True), warmup=2)
        d2h = device_seconds(lambda host=host: host.copy_(device, non_blocking=True), warmup=2)
        out[f"host_to_device_{label}_gb_per_s"] = size / h2d / 1e9
        out[f"device_to_host_{label}_gb_per_s"] = size / d2h / 1e9
    d2d = torch.empty_like(device)
    out["device_to_device_gb_per_s_read_and_written"] = (
        2 * size / device_seconds(lambda: d2d.copy_(device)) / 1e9
    )
    return out


def build_model(key: str, layers: int | None = None) -> nn.Module:
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = model_config(key)
    if layers is not None:
        cfg["num_hidden_layers"] = layers
    config = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device(DEVICE):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    return model


def with_lora(model: nn.Module, rank: int) -> nn.Module:
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0,
                        target_modules=LORA_TARGETS, task_type="CAUSAL_LM")  # fmt: skip
    return get_peft_model(model, config)


def one_layer(key: str, micro_batches: tuple[int, ...], seq_len: int, rank: int) -> dict[str, Any]:
    """Forward, and forward + backward, of decoder layer 0 with LoRA on its seven projections
    (the layer's input needs a gradient, as inside a model)."""
    model = with_lora(build_model(key, layers=1), rank)
    inner = model.base_model.model.model
    layer, rotary = inner.layers[0], inner.rotary_emb
    hidden = model_config(key)["hidden_size"]
    out: dict[str, Any] = {"model": key, "seq_len": seq_len, "lora_rank": rank, "runs": []}
    for mb in micro_batches:
        x = torch.randn(mb, seq_len, hidden, device=DEVICE, dtype=torch.bfloat16)
        x.requires_grad_(True)
        positions = torch.arange(seq_len, device=DEVICE)[None].expand(mb, -1)
        cos_sin = rotary(x, positions)

        def forward(x: torch.Tensor = x, cos_sin: Any = cos_sin) -> torch.Tensor:
            y = layer(x, position_embeddings=cos_sin, attention_mask=None)
            return y[0] if isinstance(y, tuple) else y

        def step(x: torch.Tensor = x) -> None:
            forward().float().square().mean().backward()
            x.grad = None

        with torch.no_grad():
            fwd_s = device_seconds(forward)
        total_s = device_seconds(step)
        out["runs"].append({
            "micro_batch": mb, "tokens": mb * seq_len,
            "forward_seconds": fwd_s, "forward_backward_seconds": total_s,
        })  # fmt: skip
    del model
    return out


def layer_profile(key: str, micro_batch: int, seq_len: int, rank: int) -> dict[str, Any]:
    """Where one LoRA decoder layer's forward + backward spends GPU time (torch.profiler's
    kernel table), and scaled dot-product attention alone by backend and GQA handling."""
    from torch.profiler import ProfilerActivity, profile

    model = build_model(key, layers=1)
    if rank:
        inner = with_lora(model, rank).base_model.model.model
    else:  # the frozen layer alone: what the stack's eager kernels cost without adapters
        model.requires_grad_(False)
        inner = model.model
    layer, rotary = inner.layers[0], inner.rotary_emb
    cfg = model_config(key)
    x = torch.randn(micro_batch, seq_len, cfg["hidden_size"], device=DEVICE,
                    dtype=torch.bfloat16, requires_grad=True)  # fmt: skip
    positions = torch.arange(seq_len, device=DEVICE)[None].expand(micro_batch, -1)
    cos_sin = rotary(x, positions)

    def step() -> None:
        y = layer(x, position_embeddings=cos_sin, attention_mask=None)
        (y[0] if isinstance(y, tuple) else y).float().square().mean().backward()
        x.grad = None

    def forward() -> None:
        layer(x, position_embeddings=cos_sin, attention_mask=None)

    gpu = DEVICE == "cuda"
    kernels: dict[str, Any] = {}
    for label, fn in (("forward", forward), ("forward_backward", step)):
        device_seconds(fn)
        with profile(activities=[ProfilerActivity.CUDA if gpu else ProfilerActivity.CPU]) as prof:
            for _ in range(PROFILED_STEPS):
                fn()
            synchronize()
        events = prof.key_averages()
        kernels[label] = [
            {"name": e.key, "calls": e.count / PROFILED_STEPS,
             "device_us": _self_time_us(e, gpu) / PROFILED_STEPS}
            for e in sorted(events, key=lambda e: -_self_time_us(e, gpu))
            if _self_time_us(e, gpu) > 0
        ]  # fmt: skip
    heads, kv_heads = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // heads
    q = torch.randn(micro_batch, heads, seq_len, head_dim, device=DEVICE, dtype=torch.bfloat16)
    k = torch.randn(micro_batch, kv_heads, seq_len, head_dim, device=DEVICE, dtype=torch.bfloat16)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    repeat = heads // kv_heads
    timings = {
        "gqa_flag_s": device_seconds(lambda: sdpa(q, k, k, is_causal=True, enable_gqa=True)),
        "repeated_kv_s": device_seconds(lambda: sdpa(
            q, k.repeat_interleave(repeat, 1), k.repeat_interleave(repeat, 1), is_causal=True)),
    }  # fmt: skip
    from torch.nn.attention import SDPBackend, sdpa_kernel

    for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                    SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH):  # fmt: skip
        for gqa in (True, False):
            kk = k if gqa else k.repeat_interleave(repeat, 1)
            try:
                with sdpa_kernel(backend):
                    timings[f"{backend.name}_gqa{gqa}_s"] = device_seconds(
                        lambda kk=kk, gqa=gqa: sdpa(q, kk, kk, is_causal=True, enable_gqa=gqa)
                    )
            except RuntimeError as error:
                timings[f"{backend.name}_gqa{gqa}_s"] = f"refused: {str(error)[:200]}"
    flops = 4 * micro_batch * heads * seq_len * seq_len * head_dim / 2
    return {"model": key, "micro_batch": micro_batch, "seq_len": seq_len, "lora_rank": rank,
            "attention_forward_flops": flops, "sdpa": timings,
            "kernels_per_step": kernels}  # fmt: skip


PROFILED_STEPS = 3


def _self_time_us(event: Any, gpu: bool) -> float:
    """An event's own time on the device (CPU time in a trial run without a GPU)."""
    if not gpu:
        return float(event.self_cpu_time_total)
    total = getattr(event, "self_device_time_total", None)  # self_cuda_time_total before 2.4
    return float(event.self_cuda_time_total if total is None else total)


def head_step(key: str, micro_batch: int, seq_len: int) -> dict[str, Any]:
    """The model without its decoder layers: final norm, LM head and the loss, forward and
    backward down to the last layer's output (what a LoRA step adds to its layers), timed
    and profiled."""
    from torch.profiler import ProfilerActivity, profile

    model = build_model(key, layers=0)
    model.requires_grad_(False)
    cfg = model_config(key)
    x = torch.randn(micro_batch, seq_len, cfg["hidden_size"], device=DEVICE,
                    dtype=torch.bfloat16, requires_grad=True)  # fmt: skip
    ids = torch.randint(0, cfg["vocab_size"], (micro_batch, seq_len), device=DEVICE)

    def step() -> None:
        model(inputs_embeds=x, labels=ids).loss.backward()
        x.grad = None

    seconds = device_seconds(step)
    gpu = DEVICE == "cuda"
    with profile(activities=[ProfilerActivity.CUDA if gpu else ProfilerActivity.CPU]) as prof:
        for _ in range(PROFILED_STEPS):
            step()
        synchronize()
    kernels = [
        {"name": e.key, "calls": e.count / PROFILED_STEPS,
         "device_us": _self_time_us(e, gpu) / PROFILED_STEPS}
        for e in sorted(prof.key_averages(), key=lambda e: -_self_time_us(e, gpu))
        if _self_time_us(e, gpu) > 0
    ]  # fmt: skip
    return {"model": key, "micro_batch": micro_batch, "seq_len": seq_len,
            "vocab_size": cfg["vocab_size"], "hidden_size": cfg["hidden_size"],
            "step_seconds": seconds, "kernels_per_step": kernels}  # fmt: skip


class NF4LoraLinear(nn.Module):
    """A frozen NF4 weight dequantized at each use, forward and backward (as bitsandbytes'
    Linear4bit under QLoRA), with a trainable LoRA pair beside it; with `quantized` False the
    same layer over the frozen BF16 weight, so the two differ by the dequantization alone."""

    def __init__(self, linear: nn.Linear, rank: int, quantized: bool = True) -> None:
        super().__init__()
        self.quantized = quantized
        if quantized:
            packed, absmax = nf4_quantize(linear.weight.data)
            self.register_buffer("packed", packed)
            self.register_buffer("absmax", absmax)
        else:
            self.register_buffer("weight", linear.weight.data)
        self.shape = linear.weight.shape
        self.lora_a = nn.Parameter(torch.randn(rank, self.shape[1], device=DEVICE,
                                               dtype=torch.bfloat16) / rank)  # fmt: skip
        self.lora_b = nn.Parameter(torch.zeros(self.shape[0], rank, device=DEVICE,
                                               dtype=torch.bfloat16))  # fmt: skip
        self.scale = 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.quantized:
            base = _Nf4Matmul.apply(x, self.packed, self.absmax, self.shape)
        else:
            base = x @ self.weight.T
        return base + (x @ self.lora_a.T) @ self.lora_b.T * self.scale


class _Nf4Matmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, packed: torch.Tensor, absmax: torch.Tensor,
                shape: torch.Size) -> torch.Tensor:  # fmt: skip
        ctx.save_for_backward(packed, absmax)
        ctx.shape = shape
        return x @ nf4_dequantize(packed, absmax, shape).T

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        packed, absmax = ctx.saved_tensors
        return grad @ nf4_dequantize(packed, absmax, ctx.shape), None, None, None


def as_qlora(model: nn.Module, rank: int, quantized: bool = True) -> nn.Module:
    for param in model.parameters():
        param.requires_grad_(False)
    for layer in model.model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for name in LORA_TARGETS:
                linear = getattr(parent, name, None)
                if isinstance(linear, nn.Linear):
                    setattr(parent, name, NF4LoraLinear(linear, rank, quantized))
                    del linear
    if DEVICE == "cuda":
        torch.cuda.empty_cache()
    return model


def train_steps(key: str, method: str, micro_batch: int, seq_len: int, rank: int,
                checkpointing: bool, steps: int = 6) -> dict[str, Any]:  # fmt: skip
    """Tokens per second of whole training steps (forward, backward, AdamW on the adapters) on
    random tokens, every sequence full length."""
    if DEVICE == "cuda":
        torch.cuda.reset_peak_memory_stats()
    model = build_model(key)
    if method == "LoRA":
        model = with_lora(model, rank)
    else:  # QLoRA, or LoRA-plain: the QLoRA layers over BF16 weights
        model = as_qlora(model, rank, quantized=method == "QLoRA")
    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if hasattr(model, "enable_input_require_grads"):
            model.enable_input_require_grads()
    model.config.use_cache = False
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-4, fused=DEVICE == "cuda")
    vocab = model_config(key)["vocab_size"]
    ids = torch.randint(0, vocab, (micro_batch, seq_len), device=DEVICE)

    def step() -> None:
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    seconds = device_seconds(step, warmup=2) if steps else float("nan")
    result = {
        "model": key, "method": method, "micro_batch": micro_batch, "seq_len": seq_len,
        "lora_rank": rank, "activation_checkpointing": checkpointing,
        "trainable_params": sum(p.numel() for p in trainable),
        "step_seconds": seconds, "tokens_per_s": micro_batch * seq_len / seconds,
        "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30 if DEVICE == "cuda" else 0,
    }  # fmt: skip
    return result  # the model and optimizer go with this frame


def corpus_row(index: int, info: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """A training figure in the corpus schema, its source this script on this machine."""
    display = json.loads((MODELS_DIR / f"{run['model']}.json").read_text())["_display_name"]
    quant = "NF4 (QLoRA)" if run["method"] == "QLoRA" else "BF16 (LoRA)"
    kernels = {
        "LoRA": "PEFT LoRA layers",
        "LoRA-plain": "the script's own LoRA layers over frozen BF16 weights (the QLoRA rows' "
                      "layers without NF4)",
        "QLoRA": "NF4 weights dequantized at each use by a torch.compile'd kernel",
    }[run["method"]]  # fmt: skip
    return {
        "id": f"C{index:03d}",
        "category": "training_finetune",
        "hardware": {"gpu": info["gpu"], "gpu_count": 1},
        "engine": f"PyTorch {info['torch']} + transformers {info['transformers']} "
                  f"+ PEFT {info['peft']} (SDPA attention, fused AdamW)",
        "model": display,
        "quant": quant,
        "workload": {
            "phase": "train", "method": run["method"].removesuffix("-plain"),
            "batch_size": run["micro_batch"],
            "grad_accum": 1, "seq_len": run["seq_len"], "lora_rank": run["lora_rank"],
            "lora_targets": ", ".join(LORA_TARGETS),
            "gradient_checkpointing": run["activation_checkpointing"],
            "parallelism": "single GPU",
            "test": "random token ids, every sequence full length (no padding)",
        },
        "metric": "training throughput",
        "value": round(run["tokens_per_s"], 1),
        "unit": "tokens/s",
        "peak_memory": f"{run['peak_memory_gib']:.1f} GiB (torch.cuda.max_memory_allocated)",
        "caveats": f"Random weights at the model's shapes; LoRA on all seven projections; "
                   f"{kernels}; mean of timed steps after two warm-ups.",
    }  # fmt: skip


TRAIN_RUNS = {
    # (model, method, micro_batch, seq_len, activation checkpointing)
    "train-8b": [
        ("llama-3.1-8b", "LoRA", 2, 4096, False), ("llama-3.1-8b", "LoRA", 2, 4096, True),
        ("llama-3.1-8b", "LoRA", 1, 2048, True), ("llama-3.1-8b", "QLoRA", 2, 4096, True),
        ("llama-3.2-1b", "LoRA", 4, 2048, False), ("qwen3-8b", "LoRA", 2, 4096, True),
        ("qwen3-8b", "QLoRA", 2, 4096, True),
    ],
    "train-sizes": [
        ("llama-3.1-8b", "LoRA-plain", 2, 4096, True), ("llama-3.1-8b", "QLoRA", 2, 4096, False),
        ("llama-3.2-1b", "LoRA", 4, 2048, True), ("llama-3.2-3b", "LoRA", 2, 4096, False),
        ("llama-3.2-3b", "LoRA", 2, 4096, True), ("qwen3-0.6b", "LoRA", 8, 2048, False),
        ("qwen3-4b", "LoRA", 2, 4096, True), ("mistral-7b", "LoRA", 2, 4096, True),
        ("qwen2.5-14b", "QLoRA", 1, 4096, True),
    ],
    "quick": [("llama-3.2-1b", "LoRA", 1, 256, False), ("llama-3.2-1b", "QLoRA", 1, 256, True)],
}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--quick", action="store_true", help="small shapes, to try the script")
    parser.add_argument(
        "--sets",
        default="kernels,train-8b",
        help="comma-separated: kernels, layers-small, " + ", ".join(TRAIN_RUNS),
    )
    parser.add_argument("--first-id", type=int, default=1, help="number of the first row (C…)")
    args = parser.parse_args()
    global nf4_dequantize
    report = Report(args.out)
    report.section("machine", machine)
    info = report.data["sections"]["machine"]
    quick = args.quick
    sets = ["kernels", "quick"] if quick else args.sets.split(",")
    dense = "llama-3.2-1b" if quick else "llama-3.1-8b"
    seq = 256 if quick else 4096
    try:
        # Shapes differ by projection and model: after the first recompile the kernel is
        # compiled for dynamic sizes instead of once per shape.
        nf4_dequantize = torch.compile(_nf4_dequantize)
    except Exception:  # compiled where it can be; the report says which ran
        report.data["errors"]["compile"] = traceback.format_exc()
    if "kernels" in sets:
        tokens = (1, 16, 256) if quick else (1, 16, 256, 4096, 8192)
        report.section("matmul_bf16", lambda: matmul_bf16(dense, tokens, 512 if quick else 8192))
        batches = (1,) if quick else (1, 2, 4, 8)
        report.section("nf4_dequant", lambda: nf4_dequant(dense, batches))
        report.section("copies", lambda: copies(2**26 if quick else 2**30))
        report.section("one_layer", lambda: one_layer(dense, (1, 2, 4), seq, 16))
    if "layers-small" in sets:
        for key in ("llama-3.2-1b", "llama-3.2-3b"):
            report.section(f"one_layer_{key}", lambda k=key: one_layer(k, (1, 2, 4), 4096, 16))
    if "profile" in sets:
        for key in ("llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "qwen3-0.6b"):
            report.section(f"profile_{key}", lambda k=key: layer_profile(k, 2, 4096, 16))
    if "profile-frozen" in sets:
        for key in ("llama-3.2-1b", "llama-3.1-8b"):
            report.section(f"profile_frozen_{key}", lambda k=key: layer_profile(k, 2, 4096, 0))
            report.section(f"profile_rank64_{key}", lambda k=key: layer_profile(k, 2, 4096, 64))
    if "head" in sets:
        for key, mb, sl in (("qwen3-0.6b", 8, 2048), ("llama-3.2-1b", 4, 2048),
                            ("llama-3.1-8b", 2, 4096), ("mistral-7b", 2, 4096)):  # fmt: skip
            report.section(f"head_{key}", lambda k=key, b=mb, s=sl: head_step(k, b, s))
    runs = [run for name in sets if name in TRAIN_RUNS for run in TRAIN_RUNS[name]]
    for i, (key, method, mb, sl, ckpt) in enumerate(runs, start=args.first_id):
        name = f"train_{key}_{method}_mb{mb}_seq{sl}_{'ckpt' if ckpt else 'nockpt'}"
        report.section(name, lambda k=key, m=method, b=mb, s=sl, c=ckpt:
                       train_steps(k, m, b, s, 16, c))  # fmt: skip
        if name in report.data["sections"]:
            report.data["rows"].append(corpus_row(i, info, report.data["sections"][name]))
            report.save()


if __name__ == "__main__":
    main()
