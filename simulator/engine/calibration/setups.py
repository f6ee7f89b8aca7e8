"""From a corpus row to the engine request that predicts it, or the reason it cannot.

Each row is read by rules over what it states (hardware names, engine string, model name,
quantization, llama-bench test name); nothing here is per row except the reasons for rows the
engine cannot describe, keyed by what makes them unmodelable. Hardware figures come from
the device table (`devices.py`, datasheets cited there); model shapes from `data/models/`.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass, replace
from functools import cache

from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.efficiency import (
    HF_TRANSFORMERS,
    IK_LLAMA_CPP,
    KTRANSFORMERS,
    LLAMA_CPP,
    LLAMA_CPP_METAL,
    LLAMA_CPP_ROCM,
    LLAMA_CPP_SYCL,
    LLAMA_CPP_VULKAN,
    MEGATRON,
    METAL_MARLIN,
    MLX,
    SGLANG,
    TENSORRT_LLM,
    TORCHTUNE,
    UNSLOTH,
    VLLM,
)
from simulator.engine.calibration.figures import StepFigure, is_step_figure, step_figure
from simulator.engine.calibration.not_modeled import NotModeled
from simulator.engine.devices import APPLE, Cpu, Device, Gpu, System, devices
from simulator.engine.formats.training import FP8_NAME, quant_format
from simulator.engine.formats.weights import WEIGHT_TYPES, WeightScheme, weight_scheme
from simulator.engine.hardware import CpuSpec, GpuSpec, Hardware, UnifiedSpec, gpu_spec
from simulator.engine.model.config import ModelShape
from simulator.engine.model.layers import model_params
from simulator.engine.model.lora import ALL_TARGETS, LoraConfig
from simulator.engine.model.registry import load_model, model_slugs
from simulator.engine.serve.file_size import scaled_to_file
from simulator.engine.serve.kv_cache import kv_bytes_per_token
from simulator.engine.serve.offline_run import (
    SGLANG_BATCHING,
    VLLM_BATCHING,
    offline_concurrency,
)
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.workload import DEFAULT_UBATCH, InferWorkload, model_as_run
from simulator.engine.train.compute import HF_EAGER_TRAFFIC, PEFT_EAGER_TRAFFIC, EagerTraffic
from simulator.engine.train.data_parallel import data_parallel_need_gib, data_parallel_peak_gib
from simulator.engine.train.memory import GIB
from simulator.engine.train.refined import resident_peak_gib
from simulator.engine.train.workload import (
    DDP,
    FSDP,
    MODE_REFINED,
    NO_OFFLOAD,
    OFFLOAD_OPTIMIZER,
    OFFLOAD_PARAMETERS,
    PIPELINE,
    ZERO1,
    ZERO2,
    TrainWorkload,
    untrainable_reason,
)
from simulator.engine.workload import InferenceRequest, SimulationRequest, TrainRequest

# llama-bench's tgN reports the mean over N generated tokens, so the mean context is N/2
# past the depth (as seed 002's rows are read, tests/simulator/engine/test_inference_seeds.py).
DEFAULT_DECODE_CONTEXT = 512  # decode rows that state no context: a short chat prompt
SPEED_UNIT = "tok/s"
# Model names as rows spell them → shipped model slug; the longest matching name wins.
MODEL_ALIASES: dict[str, str] = {
    "codellama-7b": "codellama-7b",
    "llama 7b": "llama-7b",
    "llama 2 70b": "llama-2-70b",
    "llama 3 8b": "llama-3.1-8b",  # Llama 3 and 3.1 8B share every shape (config.json)
    "llama 3.1 8b": "llama-3.1-8b",
    "llama 3 70b": "llama-3.1-70b",  # likewise for 70B
    "llama 3.1 70b": "llama-3.1-70b",
    "llama 3.3 70b": "llama-3.1-70b",  # Llama 3.3 70B keeps 3.1 70B's config.json shape
    "deepseek r1": "deepseek-v3",  # DeepSeek-R1 is DeepseekV3ForCausalLM, V3's config.json
    "llama 2 7b": "llama-2-7b",
    "llama2 7b": "llama-2-7b",
    "llama2 13b": "llama-2-13b",
    "llama2 70b": "llama-2-70b",
    "llama 2 13b": "llama-2-13b",
    "llama 13b": "llama-2-13b",  # LLaMA-1 13B: Llama 2 13B's widths and layers, 2k context
    "llama 3.2 1b": "llama-3.2-1b",
    "mistral 7b": "mistral-7b",
    "mistral small 3.1 24b": "mistral-small-3.1-24b",
    "mixtral 8x7b": "mixtral-8x7b",  # Instruct v0.1 keeps the base model's config.json shape
    "llama3 70b": "llama-3.1-70b",
    "llama3 8b": "llama-3.1-8b",
    # llama-bench's label: llama.cpp names a 32-layer llama-architecture model "8B" when its
    # vocabulary has 40,000 tokens or more and is not Granite's 49,152 (src/models/llama.cpp,
    # load_arch_hparams, find_string id 57375502240), i.e. Llama 3.x 8B's 128,256 and its
    # fine-tunes; Llama 2 7B and Mistral 7B (32,000 and 32,768 tokens) print "llama 7B"
    "llama 8b": "llama-3.1-8b",
    "mixtral 8x22b": "mixtral-8x22b",
    "phi 3 mini": "phi-3-mini-4k",
    "qwen2.5 7b": "qwen2.5-7b",
    "qwen2.5 14b": "qwen2.5-14b",
    "qwen2.5 32b": "qwen2.5-32b",
    "qwen2.5 72b": "qwen2.5-72b",
    "qwen 2.5 7b": "qwen2.5-7b",
    "qwen 2.5 14b": "qwen2.5-14b",
    "qwen 2.5 32b": "qwen2.5-32b",
    "qwen 2.5 72b": "qwen2.5-72b",
    "deepseek r1 distill qwen 32b": "qwen2.5-32b",  # a Qwen2.5-32B fine-tune, same shape
    # DeepSeek-R1's card: "DeepSeek-R1-Distill-Llama-8B is derived from Llama3.1-8B-Base ...
    # DeepSeek-R1-Distill-Llama-70B is derived from Llama3.3-70B-Instruct"; Distill-Qwen-14B is
    # Qwen2.5-14B fine-tuned (its license section, as Ollama's hengwen/DeepSeek-R1-Distill-Qwen-14B
    # page quotes it, read 2026-12-06). A fine-tune keeps its base's shapes. Distill-Qwen-1.5B
    # and -7B start from Qwen2.5-Math; their own configs are shipped.
    "deepseek r1 distill qwen 7b": "deepseek-r1-distill-qwen-7b",
    "deepseek r1 distill qwen 1.5b": "deepseek-r1-distill-qwen-1.5b",
    "deepseek r1 distill qwen 1 5b": "deepseek-r1-distill-qwen-1.5b",
    "devstral 2 123b": "devstral-2-123b",
    "devstral 2512": "devstral-2-123b",
    "smollm3": "smollm3-3b",
    "hunyuan a13b": "hunyuan-a13b",
    "deepseek r1 distill llama 8b": "llama-3.1-8b",
    "deepseek r1 distill llama 70b": "llama-3.1-70b",
    "deepseek r1 distill qwen 14b": "qwen2.5-14b",
    "qwen3 0.6b": "qwen3-0.6b",
    "qwen3 8b": "qwen3-8b",
    "qwen 3 8b": "qwen3-8b",
    "qwen 3 14b": "qwen3-14b",
    "qwen 3 32b": "qwen3-32b",
    "qwen3 14b": "qwen3-14b",
    "qwen3 32b": "qwen3-32b",
    "qwen3 30b a3b": "qwen3-30b-a3b",
    "llama 3.1 405b": "llama-3.1-405b",
    "llama 3.2 3b": "llama-3.2-3b",
    "gpt-oss-20b": "gpt-oss-20b",
    "gpt-oss-120b": "gpt-oss-120b",
    "qwen3-coder-30b-a3b": "qwen3-coder-30b-a3b",
    "qwen3-235b-a22b": "qwen3-235b-a22b",
    "qwen2.5-coder-7b": "qwen2.5-coder-7b",
    "glm-4.7-flash": "glm-4.7-flash",
    "deepseek-v3": "deepseek-v3",
    "deepseek-v2-lite": "deepseek-v2-lite",
    "kimi-k2": "kimi-k2",
    # Kimi K2.6 and K2.7-Code keep K2's every width, layer and expert count (their configs in
    # ai-dynamo/aiconfigurator@095f58a5 model_configs/nvidia--Kimi-K2.6-NVFP4_config.json and
    # nvidia--Kimi-K2.7-Code-NVFP4_config.json, read 2026-11-26)
    "kimi k2.6": "kimi-k2",
    "kimi k2.7": "kimi-k2",
    "tinyllama 1.1b": "tinyllama-1.1b",
    "gemma 3 27b": "gemma-3-27b",  # the QAT checkpoints keep the model's shape
    "qwen3.5 35b a3b": "qwen3.5-35b-a3b",
    "qwen3.5 27b": "qwen3.5-27b",
    "qwen3.5 122b a10b": "qwen3.5-122b-a10b",
    "qwen3.5 397b a17b": "qwen3.5-397b-a17b",
    # Qwen3.6 keeps Qwen3.5's every architecture key (hidden size, layers and layer_types,
    # heads, linear_* keys, experts, widths, vocabulary: nvidia--Qwen3.6-27B-NVFP4 and
    # -35B-A3B-NVFP4 against Qwen--Qwen3.5-27B and -35B-A3B in ai-dynamo/aiconfigurator@095f58a5
    # model_configs, compared 2026-11-26)
    "qwen3.6 35b a3b": "qwen3.5-35b-a3b",
    "qwen3.6 27b": "qwen3.5-27b",
    "qwen3 next 80b a3b": "qwen3-next-80b-a3b",
    # Qwen3-Coder-Next: its card gives Qwen3-Next-80B-A3B's shape (80B total, 3B active, 512
    # experts with 10 routed and 1 shared, 48 layers, 16 Q / 2 KV heads of 256, 32 V / 16 QK
    # linear heads; docker/model-runner ai/qwen3-coder-next-vllm.md, find_string id
    # 69144266120), and its config is "standard Qwen3NextForCausalLM" (id 70128750322)
    "qwen3 coder next": "qwen3-next-80b-a3b",
    # llama.cpp's architecture name and size label (llama-bench's model column) of a
    # Qwen3.5/3.6-35B-A3B checkpoint or its fine-tunes
    "qwen35moe 35b.a3b": "qwen3.5-35b-a3b",
    "glm-4.5-air": "glm-4.5-air",
    "qwen3.5 9b": "qwen3.5-9b",
    "qwen 3.5 9b": "qwen3.5-9b",
    "qwen3.5 4b": "qwen3.5-4b",
    "qwen 3.5 4b": "qwen3.5-4b",
    "qwen3.5 2b": "qwen3.5-2b",
    "qwen3.5 0.8b": "qwen3.5-0.8b",
    "phi 4": "phi-4",
    "phi4": "phi-4",
    "gemma 2 9b": "gemma-2-9b",
    "gemma2 9b": "gemma-2-9b",
    "gemma 2 27b": "gemma-2-27b",
    "gemma2 27b": "gemma-2-27b",
    "gemma 3 4b": "gemma-3-4b",  # the QAT checkpoints keep the model's shape
    "gemma3 4b": "gemma-3-4b",
    "gemma 3 12b": "gemma-3-12b",
    "gemma3 12b": "gemma-3-12b",
    "qwen2.5 0.5b": "qwen2.5-0.5b",
    "qwen 2.5 0.5b": "qwen2.5-0.5b",
    "qwen2.5 1.5b": "qwen2.5-1.5b",
    "qwen 2.5 1.5b": "qwen2.5-1.5b",
    "qwen3 coder 480b a35b": "qwen3-coder-480b-a35b",
    "llama 30b": "llama-30b",  # LLaMA-1 "30B", 32.5 B parameters
    # Fine-tunes named apart from their base, which keep the base's shapes (read 2026-12-06):
    # Devstral Small "is finetuned from Mistral-Small-3.1 ... the vision encoder was removed"
    # (unsloth/Devstral-Small-2507's copy of the card's README); Magistral Small 2506/2507:
    # "Building upon Mistral Small 3.1 (2503) ... 24B parameters" (the card, as its mirrors
    # quote it); Llama-3.1-Nemotron-70B-Instruct was trained "on a Llama-3.1-70B-Instruct model
    # as the initial policy" (nvidia/Llama-3.1-Nemotron-70B-Instruct-HF README @dfe497aa);
    # Kimi-Dev-72B: "With the Qwen 2.5-72B base model as a starting point" (MoonshotAI/Kimi-Dev
    # index.html @7b621eff, find_string id 32428600385); zephyr-7b-beta "is a fine-tuned
    # version of mistralai/Mistral-7B-v0.1" (its card, find_string id 40790351049), whose
    # config mistral-7b ships.
    "devstral small": "mistral-small-3.1-24b",
    "magistral small 2506": "mistral-small-3.1-24b",
    "magistral small 2507": "mistral-small-3.1-24b",
    "llama 3.1 nemotron 70b": "llama-3.1-70b",
    "kimi dev 72b": "qwen2.5-72b",
    "zephyr 7b": "mistral-7b",
    "llama 33b": "llama-30b",
    "qwen 14b": "qwen-14b",  # first-generation Qwen-14B (Qwen2.5's is "qwen2.5 14b")
    # Qwen2.5-Coder-32B and -14B keep Qwen2.5-32B's and -14B's every shape key (hidden,
    # intermediate, layers, heads, KV heads, vocabulary, tying); only max_position_embeddings
    # differs (32,768 against 131,072): a Hugging Face copy "from Qwen/Qwen2.5-Coder-32B-Instruct"
    # and Unsloth's re-upload of Qwen/Qwen2.5-Coder-14B, compared 2026-12-06
    "qwen2.5 coder 32b": "qwen2.5-32b",
    "qwen 2.5 coder 32b": "qwen2.5-32b",
    "qwen2.5 coder 14b": "qwen2.5-14b",
    "gemma 2 2b": "gemma-2-2b",
    "gemma2 2b": "gemma-2-2b",
    # Mistral NeMo 12B: the Base-2407 config; Instruct-2407 keeps every shape key and only
    # raises max_position_embeddings (128,000 → 1,024,000)
    "mistral nemo": "mistral-nemo-12b",
    # QwQ-32B keeps Qwen2.5-32B's every shape key (Unsloth's mirror of its config.json against
    # Qwen2.5-32B's; its card: 32.5B parameters, 64 layers, 40 Q and 8 KV heads), compared
    # 2026-12-06
    "qwq 32b": "qwen2.5-32b",
    "llama 4 scout": "llama-4-scout",
    "llama4 scout": "llama-4-scout",
    "llama 4 maverick": "llama-4-maverick",
    "llama4 maverick": "llama-4-maverick",
    "qwen3-4b": "qwen3-4b",
    "qwen3 4b": "qwen3-4b",
    "dots.llm1": "dots-llm1",
    "qwen2 7b": "qwen2-7b",
    # MiniMax-M2.1's config.json equals M2.5's in all 25 architecture keys (the HF snapshot in
    # hlky/dinoml_v2@6b8c0acb agents/plans/transformers/minimax_m2/, read 2026-11-28)
    "minimax m2.1": "minimax-m2.5",
    # Gemma 4: the -it checkpoints keep the base models' text_config (hlky/dinoml_v2@6b8c0acb
    # gemma4/_sources, compared 2026-11-28); the NVFP4 and QAT checkpoints quantize it
    "gemma 4 26b a4b": "gemma-4-26b-a4b",
    "gemma4 26b a4b": "gemma-4-26b-a4b",
    "gemma 4 31b": "gemma-4-31b",
    "gemma4 31b": "gemma-4-31b",
    "glm-4.5": "glm-4.5",
    "glm 4.5": "glm-4.5",
    # GLM-4.6: no config.json copy found; GLM-4.5's (verbatim) and GLM-4.7's share every
    # architecture key but the context (131,072 against 202,752), and GLM-4.6 is listed at
    # 355 B with a 202,752-token context (Xinference's model docs), as GLM-4.7 is
    "glm 4.6": "glm-4.7",
    "glm-4.6": "glm-4.7",
    "glm 4 32b 0414": "glm-4-32b-0414",
    "glm-4-32b-0414": "glm-4-32b-0414",
    "glm4 32b 0414": "glm-4-32b-0414",
    # GLM-Z1-32B-0414 (no config.json copy found): its GGUF's metadata, as llama.cpp loads
    # it, gives GLM-4-32B-0414's every shape (61 blocks, 6144 wide, FFN 23040, 48 heads, 2
    # KV heads, head 128, rotary 64, vocab 151552, 32,768 context, 32.57 B): ubergarm's load
    # logs in ikawrakow/ik_llama.cpp PR #370 (turn 1) and PR #344 (turn 18), read 2026-11-29
    "glm z1 32b 0414": "glm-4-32b-0414",
    "ministral 3 8b": "ministral-3-8b",
    "ministral3 8b": "ministral-3-8b",
    "phi 4 mini instruct": "phi-4-mini",
    "phi-4-mini": "phi-4-mini",  # Phi-4-mini-flash-reasoning is another architecture
    "phi 3 medium": "phi-3-medium-4k",
    "phi3 medium": "phi-3-medium-4k",
    "gemma 3 1b": "gemma-3-1b",
    "gemma3 1b": "gemma-3-1b",
    "qwen3 1.7b": "qwen3-1.7b",
    "qwen 3 1.7b": "qwen3-1.7b",
    "qwen3-1.7b": "qwen3-1.7b",
    "qwen2.5 3b": "qwen2.5-3b",
    "qwen 2.5 3b": "qwen2.5-3b",
    "qwen2.5 vl 7b": "qwen2.5-vl-7b",
    "qwen 2.5 vl 7b": "qwen2.5-vl-7b",
    "dots.llm1.inst": "dots-llm1",
    # DeepSeek-V3-0324 and V3.1 keep V3's every sizing key (their config.json snapshots in
    # hlky/dinoml_v2@6b8c0acb, read 2026-11-28); the TNG R1T/R1T2 "Chimera" models are merges
    # of R1-0528, R1 and V3-0324 weights, so V3's shape (tagged deepseek_v3, 685 B on HF)
    "deepseek v3 0324": "deepseek-v3",
    "deepseek v3.1": "deepseek-v3",
    "deepseek tng r1t2 chimera": "deepseek-v3",
    "deepseek r1t2 chimera": "deepseek-v3",
    "deepseek r1t chimera": "deepseek-v3",
    "mistral small 3.2 24b": "mistral-small-3.1-24b",  # the same text_config as 3.1's
    # DeepSeek-V3.2-Exp, V3.2 and V3.2-Speciale are one architecture, DeepseekV32ForCausalLM
    # (ggml-org/llama.cpp PR #23346); GLM-5.1's config.json differs from GLM-5's only in
    # transformers_version (ai-dynamo/aiconfigurator@095f58a5 model_configs, compared
    # 2026-12-06)
    "deepseek v3.2": "deepseek-v3.2",
    "glm 5": "glm-5",
    "glm 5.1": "glm-5",
    "glm 5.2": "glm-5.2",
    "deepseek v4 flash": "deepseek-v4-flash",
    "deepseek v4 pro": "deepseek-v4-pro",
    # First-generation Qwen; the -Chat checkpoints ("qwen-7b-chat", "qwen-1_8b-chat") are
    # fine-tunes of the base model's shape, and their names hold these aliases
    "qwen 7b": "qwen-7b",
    "qwen 72b": "qwen-72b",
    "qwen 1.8b": "qwen-1.8b",
    "qwen 1 8b": "qwen-1.8b",
    # How sources spell the models whose configs are shipped under another slug spelling
    # (data/models/README.md): Code Llama, Command R / R+, OLMo 2 (released as "OLMo-2-1124"),
    # DeepSeek-V2.5 (the shipped deepseek-v2 file is V2.5's config.json)
    "code llama 13b": "codellama-13b",
    "code llama 34b": "codellama-34b",
    "command r": "command-r-35b",
    "command r v01": "command-r-35b",
    "command r plus": "command-r-plus-104b",
    "command r+": "command-r-plus-104b",
    "olmo 2 1124 7b": "olmo-2-7b",
    "olmo 2 1124 13b": "olmo-2-13b",
    "deepseek v2.5": "deepseek-v2",
    # Yi-1.5-34B keeps Yi-34B's every shape key; only rms_norm_eps differs (1e-06 against
    # 1e-05: the official Yi-1.5-34B-Chat config.json page, read 2026-12-06)
    "yi 1.5 34b": "yi-34b",
    # Mistral Large 2 (2407) and its 2411 update share every shape key (their configs'
    # copies compared 2026-12-06; an early 2407 upload had a 32,768 context); Mistral Small 3
    # is the 2501 checkpoint
    "mistral large 2": "mistral-large-123b",
    "mistral large 2407": "mistral-large-123b",
    "mistral large 2411": "mistral-large-123b",
    "mistral large instruct 2407": "mistral-large-123b",
    "mistral large instruct 2411": "mistral-large-123b",
    "mistral small 24b": "mistral-small-24b-2501",
    "mistral small 3 24b": "mistral-small-24b-2501",
}
# Names that fit several shipped models, told apart by the parameter count the row states
# (llama-bench prints "llama 70B" for Llama 2 70B, 68.98 B, and Llama 3.x 70B, 70.55 B).
SIZED_ALIASES: dict[str, tuple[str, ...]] = {
    "llama 70b": ("llama-2-70b", "llama-3.1-70b"),
    "llama 1b": ("llama-3.2-1b", "tinyllama-1.1b"),  # llama-bench's label for either
    # an expert-pruned "MiniMax-M2.5-REAP-139B" keeps the name, not the shape: the count tells
    "minimax m2.5": ("minimax-m2.5",),
    # MiniMax-M2 (the first) has every architecture key of M2.5's config.json (hidden 3072, 62
    # layers, 256 experts top-8, 48/8 heads, vocabulary 200,064; a byte-for-byte copy quoted
    # in a test, find_string id 60488407499, against aiconfigurator's M2.5, compared
    # 2026-12-06); its REAP prunes keep the name too
    "minimax m2": ("minimax-m2.5",),
    # llama.cpp names DeepSeek V4's architecture deepseek4 (llama-bench: "deepseek4 284.33B")
    "deepseek v4": ("deepseek-v4-flash", "deepseek-v4-pro"),
    "deepseek4": ("deepseek-v4-flash", "deepseek-v4-pro"),
}
# An expert-pruned checkpoint ("MiniMax-M2.5-REAP-139B-A10B") keeps its parent's name but not
# its shape: such a name is told by the parameter count it states, never by the name alone.
PRUNED = re.compile(r"\b(?:reap|pruned?)\b")
# Sources print the count to three significant figures (70.6); the two 70Bs differ by 2.3 %.
PARAMS_MATCH_RTOL = 0.01
# Runtime families by a marker in the row's engine string; first match wins.
RUNTIME_MARKERS: tuple[tuple[str, str], ...] = (
    ("ik_llama.cpp", IK_LLAMA_CPP),
    ("metal marlin", METAL_MARLIN),
    ("ktransformers", KTRANSFORMERS),
    ("kt-kernel", KTRANSFORMERS),
    ("llama.cpp metal", LLAMA_CPP_METAL),
    ("torchtune", TORCHTUNE),
    ("torchtitan", TORCHTUNE),  # PyTorch-native FSDP2 training, torchtune's stack
    ("megatron", MEGATRON),
    # NeMo AutoModel is "a PyTorch DTensor-native SPMD library" training Hugging Face models
    # with FSDP2 (docs.nvidia.com/nemo/automodel/latest/about/), torchtitan's and torchtune's
    # stack, not Megatron-Core
    ("nemo automodel", TORCHTUNE),
    ("nemo", MEGATRON),
    ("unsloth", UNSLOTH),
    ("axolotl", HF_TRANSFORMERS),
    ("accelerate", HF_TRANSFORMERS),
    ("hf trainer", HF_TRANSFORMERS),
    ("fms-hf-tuning", HF_TRANSFORMERS),
    ("deepspeed", HF_TRANSFORMERS),
    ("litgpt", HF_TRANSFORMERS),
    ("fsdp_qlora", HF_TRANSFORMERS),
    ("h2o", HF_TRANSFORMERS),
    ("ms-swift", HF_TRANSFORMERS),
    ("swift", HF_TRANSFORMERS),
    ("llama-factory", HF_TRANSFORMERS),
    ("llamafactory", HF_TRANSFORMERS),
    ("peft", HF_TRANSFORMERS),
    ("trl", HF_TRANSFORMERS),
    ("transformers", HF_TRANSFORMERS),
    ("sglang", SGLANG),
    ("tensorrt-llm", TENSORRT_LLM),
    ("trt-llm", TENSORRT_LLM),
    ("trtllm", TENSORRT_LLM),
    ("vllm-mlx", MLX),  # vLLM's API over MLX kernels on Apple silicon
    ("vllm", VLLM),
    ("mlx-lm", MLX),
    ("mlx_lm", MLX),
    ("rapid-mlx", MLX),
    ("mlx", MLX),
    ("ollama", LLAMA_CPP),  # ggml's kernels under Ollama's server
    # KoboldCpp is a fork of llama.cpp with its ggml backends; LM Studio's GGUF engine is
    # llama.cpp (its MLX engine is named "MLX", matched above)
    ("koboldcpp", LLAMA_CPP),
    ("lm studio", LLAMA_CPP),
    # llamafile is llama.cpp's code in one executable; its CPU GEMMs (tinyBLAS, "llamafile
    # sgemm") are llama.cpp's own since ggml-org/llama.cpp PR #6414 (April 2024)
    ("llamafile", LLAMA_CPP),
    ("vulkan", LLAMA_CPP_VULKAN),
    ("sycl", LLAMA_CPP_SYCL),
    ("rocm", LLAMA_CPP_ROCM),
    ("hip", LLAMA_CPP_ROCM),
    ("metal", LLAMA_CPP_METAL),
    ("llama.cpp", LLAMA_CPP),
    ("llama-bench", LLAMA_CPP),
    ("llama-server", LLAMA_CPP),
    # last: a training loop written on PyTorch itself (torchao's benchmark scripts, NVIDIA's
    # DGX Spark playbooks), PyTorch-native eager or compiled modules, torchtune's stack; any
    # stack named above ("TensorRT-LLM (PyTorch backend)") is that stack
    ("pytorch", TORCHTUNE),
)
# KTransformers' NUMA mode loads the experts once per NUMA node and has each socket's threads
# read their own copy (doc/en/DeepseekR1_V3_tutorial.md, USE_NUMA=1: "memory usage doubles").
NUMA_REPLICATING_RUNTIMES = frozenset({KTRANSFORMERS})
# MoE GGUFs named after their expert type keep the other tensors at Q8_0 (ggml-org's gpt-oss
# GGUFs: MXFP4 experts, Q8_0 attention and embeddings).
EXPERT_ONLY_TYPES = ("MXFP4",)
# torchtune's recipes for the rows' models (recipes/configs/llama3_1/*): LoRA rank.
TORCHTUNE_LORA_RANK = {"LoRA": 8, "QLoRA": 16}
DEFAULT_LORA_RANK = 16  # a row that states no rank: PEFT examples' and Unsloth's usual r


# Model families whose config.json describes layers the engine has no cost rule for, by a
# pattern over the row's model name (spelled as `_spaced` spells it); the reason names the
# config.json keys that say why. Each is refused rather than read as a plain transformer.
# The keys were read 2026-11-26 from the Hugging Face configs vendored in
# https://github.com/ai-dynamo/aiconfigurator/tree/095f58a51c4ca8e61b66ec108d86f223f8d559ce/aic-core/src/aiconfigurator_core/model_configs
# (files named <owner>--<repo>_config.json), each noted below.
UNMODELED_ARCHITECTURES: tuple[tuple[str, str], ...] = (
    (
        # nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16
        r"\bnemotron 3 nano\b",
        "Nemotron-H (model_type nemotron_h): config.json's `hybrid_override_pattern` makes "
        'most layers Mamba-2 ("M": `mamba_num_heads`, `ssm_state_size`) between MoE ("E") '
        'and a few attention ("*") layers, a recurrent state the engine does not describe',
    ),
    (
        # ibm-granite/granite-4.0-h-small config.json as quoted with its layer_types counts
        # (find_string '"model_type": "granitemoehybrid"', id 57624389648), read 2026-11-26
        r"\bgranite 4\.0 h\b",
        "Granite 4.0-H (model_type granitemoehybrid): config.json's `layer_types` makes 36 of "
        'its 40 layers "mamba" (`mamba_d_state` 128, `mamba_expand` 2), a recurrent state '
        "the engine does not describe",
    ),
)


def _unmodeled_architecture(model: str) -> str | None:
    name = _spaced(model)
    return next((why for pattern, why in UNMODELED_ARCHITECTURES if re.search(pattern, name)), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class InferSetup:
    request: InferenceRequest
    phase: str  # "prefill", "decode" or "serving"
    # serving: the workload's serving run (its output_tokens, request rate and requests);
    # the figure is output tokens/s, or input and output together when `total`
    total: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainSetup:
    request: TrainRequest
    runtime: str
    # a figure published as a time per step or a rate of samples: the tokens it holds
    figure: StepFigure | None = None
    # tokens/s of each GPU though the unit does not say so (`figure_per_gpu`)
    per_gpu: bool = False


Setup = InferSetup | TrainSetup


# Offload named in a row's text, and what negates it ("deepspeed zero-3 (no cpu offload)").
_OFFLOAD = re.compile(
    r"(?<![a-z])(?:(no|without|w/o)\s+)?(cpu[ _-]?offload|zero-offload|zero-infinity)"
)


def _states_offloaded(text: str) -> bool:
    """Whether the row's text says optimizer states or weights went to CPU RAM, not counting
    a negated mention."""
    return any(match.group(1) is None for match in _OFFLOAD.finditer(text))


# Offload that moves the weights too: ZeRO-3's and FSDP's (their CPU offload holds the
# parameter shards in host RAM: DeepSpeed `offload_param`, FSDP `CPUOffload(offload_params=True)`,
# torchtune's `fsdp_cpu_offload`), and ZeRO-Infinity's; with ZeRO-1/2 only the optimizer's.
_WEIGHTS_OFFLOADED = re.compile(r"zero-?3|zero stage 3|fsdp|zero-infinity|offload_param")


def offload_of(row: MeasurementRow) -> str:
    """The row's offload (`train/offload.py`): none, the optimizer's or the weights' too."""
    text = _row_text(row)
    if not _states_offloaded(text):
        return NO_OFFLOAD
    return OFFLOAD_PARAMETERS if _WEIGHTS_OFFLOADED.search(text) else OFFLOAD_OPTIMIZER


def _offload_cpu(row: MeasurementRow) -> CpuSpec:
    """The CPU that updates an offloaded row's state, as the row names it."""
    named = str(row.hardware.get("cpu") or "")
    try:
        cpu = _match(Cpu, named) if named else None
    except NotModeled:
        cpu = None
    if cpu is None:
        raise NotModeled(
            "optimizer state offloaded to host RAM, and the row names no CPU from the device "
            f"table ({named or 'none stated'}): the CPU's memory bandwidth sets the update's time"
        )
    return CpuSpec(
        name=cpu.name,
        cores=cpu.cores,
        mem_gbps=cpu.mem_gbps,  # one socket's: the update's pages sit where first touched
        flops_per_core_cycle=float(cpu.flops_per_core_cycle),
        ghz=float(cpu.all_core_ghz),
    )


def _row_text(row: MeasurementRow) -> str:
    """What the row states of its engine, hardware and workload, lower-cased."""
    return f"{row.engine} {json.dumps(dict(row.hardware))} {json.dumps(dict(row.workload))}".lower()


# Speculative decoding as sources name it (a draft model, MTP heads, EAGLE, DFlash), and the
# phrases that say a run had none ("baseline (no speculative decoding)", "no MTP stated").
SPECULATIVE = re.compile(r"speculative decoding|\bmtp\b|\beagle\d?\b|\bdflash\b|draft model")
NOT_SPECULATIVE = re.compile(r"\bno (?:speculative decoding|mtp\b)[^;,.)]*")


def _speculative(row: MeasurementRow) -> bool:
    """Whether the row's engine or caveats say its decode ran speculatively."""
    said = f"{row.engine} {row.caveats}".lower()
    return bool(SPECULATIVE.search(NOT_SPECULATIVE.sub(" ", said)))


# Rows the engine cannot describe, by the feature that stops it (checked before any parsing).
def _unmodeled_reason(row: MeasurementRow) -> str | None:
    lowered = _row_text(row)
    rules: tuple[tuple[bool, str], ...] = (
        (
            _speculative(row),
            "speculative decoding (a draft model or MTP heads proposing tokens the model "
            "verifies in one pass): its speed depends on the acceptance rate, which the engine "
            "does not model",
        ),
        (
            not is_tokens_per_s(row.unit)
            and not is_step_figure(row)
            and not _single_stream_latency(row),
            f"the engine predicts speeds; {row.metric!r} in {row.unit} is "
            f"{_what_the_unit_measures(row.unit)}",
        ),
        (
            row.quant.strip().lower() == "not stated" and _released_weights(row) is None,
            "the source does not state the weights' quantization, which sets the bytes read",
        ),
        (
            bool(ATTENTION_WEIGHTS_ON_CPU.search(lowered)),
            "attention's weights on the CPU as well as its KV cache (-ot attn=CPU): the engine's "
            "KV cache in host RAM keeps the attention projections on the GPU",
        ),
        (
            row.category == "inference_nvme_streaming",
            "experts streamed from an SSD through a RAM expert cache: the inference engine has "
            "no storage tier (its placements are GPU, CPU RAM and unified memory)",
        ),
        (
            "raspberry pi" in lowered,
            "a GPU hosted by a Raspberry Pi: its Arm cores drive every kernel launch over a PCIe "
            "×1 link, and the engine's per-layer costs are a desktop host's",
        ),
        (
            bool(SINGLE_BOARD_RISCV_HOST.search(lowered)),
            "a GPU hosted by a RISC-V development board: its cores drive every kernel launch, "
            "and the engine's per-layer costs are a desktop host's",
        ),
        (
            row.workload.get("phase") == "serving" and _serving_lengths(row) is None,
            "a serving benchmark without its prompt and output lengths cannot be simulated",
        ),
        (
            bool(re.search(r"(?:-sm|--split-mode)\s+tensor", lowered)),
            "llama.cpp's tensor split (-sm tensor) was an experimental branch when measured; "
            "its kernels are not the released layer or row split",
        ),
        (
            bool(re.search(r"(?:-sm|--split-mode)\s+row", lowered)),
            "llama.cpp's row split (-sm row) splits each weight matrix over the GPUs and gathers "
            "every matrix product's partial results on the main GPU, far more transfers and "
            "synchronizations than the layer split or tensor parallelism's two all-reduces per "
            "layer that the engine models",
        ),
        (
            "gpus" in row.hardware or " + " in str(row.hardware.get("gpu", "")),
            "mixed GPU models in one machine: the engine's layer split assumes identical GPUs",
        ),
        (
            "kt-kernel" in lowered,
            "kt-kernel switches between CPU (AMX INT4) and layerwise GPU prefill at a token "
            "threshold the row does not state; AMX INT4 throughput has no datasheet figure",
        ),
        (
            "freetoken" in lowered,
            "GLM-5.3-Flash has no published config.json to take its shape from",
        ),
        (
            (architecture := _unmodeled_architecture(row.model)) is not None,
            architecture or "",
        ),
        (
            _rpc(row) and _names_discrete_gpu(row),
            "llama.cpp RPC over machines with discrete GPUs: the row's GPU count does not say "
            "how many each machine holds",
        ),
        (
            _rpc(row) and _machine_count(row) > 1 and _network_gbit_per_s(row) is None,
            "the row does not state the network between its machines: each token's hidden "
            "state crosses it at that speed",
        ),
        (
            not _rpc(row) and _machine_count(row) > 1,
            "a cluster of several machines splitting the model over a network (exo, MLX "
            "distributed): the engine models llama.cpp's RPC backend only",
        ),
        (
            _parallelism_unstated(row),
            "the row does not say how its GPUs split the model: vLLM, SGLang and TensorRT-LLM "
            "run on one GPU unless told to split it (tensor, pipeline, data or expert "
            "parallel), and each split runs at another speed",
        ),
        (
            str(row.workload.get("figure_scope", "")).startswith("not stated"),
            "the source does not say whether its tokens/s is per GPU or the machine's",
        ),
        (
            row.category.startswith("training")
            and bool(re.search(r"\bllama ?4\b", _spaced(row.model))),
            "Llama 4 as transformers builds it for training (Llama4TextMoe) runs every token "
            "through all of a layer's experts, the unchosen ones weighted by a router score of "
            "0; the training engine computes the chosen experts only",
        ),
        (
            row.category == "training_moe_offload",
            "LoRA training with routed experts computed on the CPU (KTransformers AMX) is not "
            "in the training engine, which keeps or streams whole layers on the GPU",
        ),
        (
            "h20-3e" in str(row.hardware.get("gpu", "")).lower(),
            "no datasheet entry for the H20-3e (141 GB of HBM3e): the device table's H20 is "
            "the 96 GB card, and the 3e's bandwidth has no source it could cite",
        ),
        (
            _gpu_not_stated(str(row.hardware.get("gpu", ""))),
            "the row's GPU is not stated next to the figure",
        ),
        (
            _old_cuda_build(row),
            f"a llama.cpp CUDA build of {row.measured_year}: its kernels (dequantize then "
            "cuBLAS for prompts, per-row matrix-vector products for decode) predate the int8 "
            "tensor-core MMQ kernels, FlashAttention and CUDA graphs of 2024, which the "
            "engine's llama.cpp constants describe",
        ),
        (
            _cdna_prompt_before_matrix_cores(row),
            "llama.cpp's ROCm build before its prompt kernels used CDNA's matrix cores "
            "(ggml-org/llama.cpp PR #14624, July 2025): quantized prompt GEMMs ran on vector "
            "int8 dot products, far below the matrix-core peak the device table lists",
        ),
        (
            row.category.startswith("training") and "varlen" in lowered,
            "sequences packed from shorter documents with variable-length attention (each "
            "document attends only to its own tokens): the attention's cost is set by the "
            "documents' lengths, which the source does not state",
        ),
        (
            _stalled_run(row),
            "the run did not serve at a steady rate: the benchmark printed a peak output "
            f"throughput over {STALL_PEAK_RATIO:g}× its mean, so its requests stalled between "
            "bursts (a fallback kernel path or a scheduler stall) and the engine's steady "
            "batched rate does not describe it",
        ),
        (
            row.engine.lower().startswith("llama.cpp,") and "ktransformers" in row.source_url,
            "the comparison's llama.cpp run (Feb 2025) predates tensor overrides (-ot), and "
            "which layers it kept on the GPU is not stated",
        ),
    )
    return next((reason for applies, reason in rules if applies), None)


# `vllm bench serve` prints a run's peak output tokens/s (its best second) beside the mean. A
# steady continuously batched run keeps the mean within a small factor of the peak (prefill
# bursts, the run's ramp and tail: 1.6x for vLLM's 1,000 ShareGPT prompts of gpustack's
# gpt-oss-20b A100 page); a mean more than this many times below the peak is a stalled run.
STALL_PEAK_RATIO = 10.0


def _stalled_run(row: MeasurementRow) -> bool:
    """Whether a serving row's stated peak output throughput is over STALL_PEAK_RATIO × its
    mean output throughput (the row's value)."""
    peak = row.workload.get("peak_output_tokens_per_s")
    if isinstance(peak, bool) or not isinstance(peak, int | float) or row.value <= 0:
        return False
    return "output" in row.metric.lower() and peak > STALL_PEAK_RATIO * row.value


def _gpu_not_stated(gpu: str) -> bool:
    """ "not stated in the table (doc's test rig: …)", "24 GB VRAM GPU (model not stated)";
    not a named card whose note says only its memory size went unstated (one size exists)."""
    lowered = gpu.lower()
    return lowered.startswith("not stated") or "model not stated" in lowered


# llama.cpp's CUDA backend gained FlashAttention (ggml-org/llama.cpp PR #5021, April 2024),
# CUDA graphs (PR #6766, May 2024) and int8 tensor-core MMQ for every quant (PR #7716, June
# 2024); a build dated before 2024 runs none of the kernels its fitted constants describe.
FIRST_CURRENT_CUDA_YEAR = 2024


# A RISC-V development board driving a PCIe GPU (SiFive's HiFive boards): geerlingguy/
# ai-benchmarks issue #20, an RX 580 under a HiFive Premier P550.
SINGLE_BOARD_RISCV_HOST = re.compile(r"\bhifive\b|\brisc-v host\b")


def _old_cuda_build(row: MeasurementRow) -> bool:
    engine = row.engine.lower()
    return (
        row.measured_year is not None
        and row.measured_year < FIRST_CURRENT_CUDA_YEAR
        and "cuda" in engine
        and re.search(r"(?<![\w-])llama\.cpp(?![\w-])", engine) is not None
    )


# llama.cpp's HIP MMQ kernels (its prompt GEMMs for quantized weights) multiplied with vector
# int8 dot products on AMD's datacenter GPUs until they used CDNA's matrix cores (MFMA):
# ggml-org/llama.cpp PR #14624, "HIP: Enable Matrix cores for MMQ Kernels" (CDNA3, described
# 2025-07-10), and PR #14949 (gfx908, gfx90a). The device table's CDNA peaks are the matrix
# cores'. llama-bench prints a build counter that grows with every commit; build 4696 was
# published on 2025-02-12 (geerlingguy/ai-benchmarks issue #20; hold-out rows V069-V071), so a
# build numbered at most that predates both PRs.
LAST_BUILD_BEFORE_CDNA_MATRIX_CORES = 4696
CDNA_GPU = re.compile(r"\bmi(?:100|210|250x?|300[ax]?|325x)\b")
LLAMA_BENCH_BUILD = re.compile(r"\((\d{3,5})\)")


def _cdna_prompt_before_matrix_cores(row: MeasurementRow) -> bool:
    """A prompt on a CDNA GPU measured with a llama.cpp ROCm build from before its MMQ kernels
    used matrix cores (by its build counter, or a year before 2025 where it prints none)."""
    gpu = str(row.hardware.get("gpu", "")).lower()
    if row.workload.get("phase") != "prefill" or not CDNA_GPU.search(gpu):
        return False
    try:
        if runtime_of(row) != LLAMA_CPP_ROCM:
            return False
    except NotModeled:  # no runtime family: that is the row's reason, found later
        return False
    build = LLAMA_BENCH_BUILD.search(row.engine)
    if build is not None:
        return int(build.group(1)) <= LAST_BUILD_BEFORE_CDNA_MATRIX_CORES
    return row.measured_year is not None and row.measured_year < 2025


# FP8 as training stacks name it: torchao's float8, Transformer Engine's FP8 and MXFP8
# (per-32-element block scales, Blackwell).
FP8 = re.compile(r"float8|\b(?:mx)?fp8\b")
BF16 = re.compile(r"\bbf16\b|bfloat16")


def _training_format(row: MeasurementRow, method: str) -> str:
    """QLoRA's NF4 base, FP8 GEMMs on BF16 weights, or BF16."""
    if method == "QLoRA":
        return "NF4"
    return FP8_NAME if _fp8_training(row) else "BF16"


def _fp8_training(row: MeasurementRow) -> bool:
    """FP8 GEMMs: the row's precision says so, or its stack does and the precision does not
    say BF16 (a float8 study's BF16 baseline runs BF16)."""
    precision = row.quant.lower()
    if FP8.search(precision):
        return True
    return bool(FP8.search(row.engine.lower())) and not BF16.search(precision)


# What a published figure that is not tokens per second measures, by its unit.
TIME_KIND = (
    "a time, not a speed: a whole run's wall time holds loading, quantization and evaluation "
    "besides its steps, and a time that names no step pins no tokens (a time per step is read "
    "as tokens when the row pins them: calibration/figures.py)"
)
UNIT_KINDS: tuple[tuple[str, str], ...] = (
    (r"\bpeak\b", "a peak, not the steady rate the engine predicts"),
    (r"gib|\bgb\b|\bmb\b|^tokens$", "a capacity limit (memory or context), not a speed"),
    (r"tflops|flop", "a FLOP rate, whose count of FLOPs per token the source sets"),
    (
        r"samples|\bit/s|iters?/s",
        "a rate of samples or steps, whose tokens the row does not pin (packing, padding and "
        "lengths differ by tool)",
    ),
    (
        r"/\s*token\b|per token",
        "a latency per token, which the engine reads as a speed only for one sequence's decode "
        "or prompt (batch 1)",
    ),
    (r"^(?:s|sec|secs|seconds|min|minutes|h|hours|ms)\b|/it\b|/step\b|per step", TIME_KIND),
)


def _what_the_unit_measures(unit: str) -> str:
    lowered = unit.lower().strip()
    return next(
        (kind for pattern, kind in UNIT_KINDS if re.search(pattern, lowered)),
        "not a speed the engine predicts",
    )


def _serving_lengths(row: MeasurementRow) -> tuple[int, int] | None:
    """(prompt, output) tokens per request: stated as fields, as "N in / M out" ("8k in / 1k
    out"), or as the totals a benchmark prints over its requests (`vllm bench serve`'s "Total
    input tokens", "Total generated tokens" and "Successful requests"), whose means stand for
    a dataset of varied lengths such as ShareGPT. A "k" is 1,024 tokens, as benchmark scripts
    size their synthetic prompts (InferenceMAX's 1k/8k is 1,024/8,192)."""
    w = row.workload
    prompt, gen = (
        w.get("prompt_tokens") or w.get("input_len"),
        w.get("gen_tokens") or w.get("output_len"),
    )
    if isinstance(prompt, int) and isinstance(gen, int) and prompt > 0 and gen > 0:
        return prompt, gen
    totals = [w.get(key) for key in ("successful_requests", "total_input_tokens",
                                      "total_output_tokens")]  # fmt: skip
    done, total_in, total_out = (v if isinstance(v, int) and v > 0 else 0 for v in totals)
    if done and total_in and total_out:
        return max(1, round(total_in / done)), max(1, round(total_out / done))
    found = re.search(r"(\d+)(k?)\s*in\s*/\s*(\d+)(k?)\s*out", json.dumps(dict(w)), re.IGNORECASE)
    if found is None:
        return None
    scale = {"": 1, "k": 1024, "K": 1024}
    return (
        int(found.group(1)) * scale[found.group(2)],
        int(found.group(3)) * scale[found.group(4)],
    )


def _serving_concurrency(row: MeasurementRow) -> int | None:
    """Requests in flight at once, as stated; one when the run sent a single prompt (a run
    stating neither is not modeled); None for an offline throughput run (many prompts queued
    at once, no rate or concurrency limit) or prompts sent at a stated rate, whose in-flight
    count the runtime's batching caps (`_offline_concurrency`) and the rate sets
    (serve/serving_run.py)."""
    w = row.workload
    for key in ("max_concurrency", "concurrency", "batch", "parallel_slots"):
        value = w.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
    prompts = w.get("num_prompts")
    if prompts is None:
        raise NotModeled(
            "a serving benchmark that states neither its concurrency nor its number of "
            "prompts: how many requests were in flight is unknown"
        )
    if prompts == 1:
        return 1
    return None


def _request_rate(row: MeasurementRow) -> float | None:
    """Requests sent per second (`--request-rate`); None for none stated or an infinite one."""
    rate = row.workload.get("request_rate")
    if isinstance(rate, int | float) and not isinstance(rate, bool) and math.isfinite(rate):
        return float(rate)
    return None


# Runtimes whose batching of a queue of prompts is published (serve/offline_run.py).
OFFLINE_BATCHING = {VLLM: VLLM_BATCHING, SGLANG: SGLANG_BATCHING}


def _admits_by_kv_pool(row: MeasurementRow, runtime: str) -> bool:
    """Whether the row's server runs at most what its batch cap and KV pool admit, however
    many requests its clients keep in flight: vLLM and SGLang on GPUs (serve/offline_run.py),
    whose scheduler queues a request until its cache blocks are free."""
    return runtime in OFFLINE_BATCHING and "gpu" in row.hardware and _system_text(row) is None


def _offline_concurrency(
    row: MeasurementRow,
    runtime: str,
    model: ModelShape,
    prompt: int,
    gen: int,
    queued: int | None = None,
) -> int:
    """The requests running at once on the row's GPUs, by its runtime's published defaults:
    of an offline throughput run's queue (`num_prompts`), or of `queued` requests its clients
    keep in flight; not modeled for runtimes without defaults or outside the GPUs."""
    if runtime == TENSORRT_LLM:
        raise NotModeled(
            "the row states no concurrency: trtllm-bench builds with an optimistic max batch "
            "and its runtime tunes the batch to the traffic, so how many requests were in "
            "flight is no published default"
        )
    if not _admits_by_kv_pool(row, runtime):
        raise NotModeled(
            "the row states no concurrency: the runtime "
            f"({runtime or 'unknown'}) ran as many of its requests at once as its max batch "
            "and KV cache allowed, defaults the engine knows for vLLM and SGLang on GPUs only"
        )
    batching = OFFLINE_BATCHING[runtime]
    gpu, count = _gpus(row)
    placement = place(model_parts(model), _weights(row, model), "gpu")
    if queued is None:
        queued = row.workload.get("num_prompts")
    assert isinstance(queued, int)
    concurrency = offline_concurrency(
        batching,
        queued=queued,
        prompt_tokens=prompt,
        gen_tokens=gen,
        gpu_name=gpu.name,
        gpu_vram_gib=gpu.vram_gib,
        gpu_count=count,
        weight_bytes=sum(share.stored_bytes for share in placement.shares),
        kv_bytes_per_token=kv_bytes_per_token(model),
        model=model,
    )
    if concurrency < 1:
        raise NotModeled("not one request's KV cache fits beside the weights")
    return concurrency


SPLIT_STATED = re.compile(r"\b(?:tp|pp|dp|ep)\s*=?\s*\d|parallel|--tp\b|-tp\b")


def _parallelism_unstated(row: MeasurementRow) -> bool:
    """Whether a checkpoint runtime's row on several GPUs states no way of splitting them."""
    gpus = row.hardware.get("gpu_count", 1)
    if runtime_of(row) not in (VLLM, SGLANG, TENSORRT_LLM) or not isinstance(gpus, int):
        return False
    stated = f"{row.engine} {json.dumps(dict(row.workload))}".lower()
    return gpus > 1 and _tensor_parallel(row) == 1 and not SPLIT_STATED.search(stated)


def _tensor_parallel(row: MeasurementRow) -> int:
    value = row.workload.get("tensor_parallel") or row.hardware.get("tensor_parallel")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    engine = row.engine.lower()
    found = re.search(r"\b(?:tp|tensor[- ]parallel(?:ism)?(?:[- ]size)?)\s*=?\s*(\d+)", engine)
    if found:
        return int(found.group(1))
    return 1


def _names(device: Gpu | Cpu | System) -> tuple[str, ...]:
    return (device.name, *device.aliases)


def _ordered_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9.+]+", text.lower())


def _words(text: str) -> set[str]:
    return set(_ordered_words(text))


# Words that, right after a chip's or card's name, make it another part: "Apple M5 Max" is
# not the "Apple M5", "RTX 4080 SUPER" not the "RTX 4080", "RX 7900 XTX" not the "RX 7900 XT".
# A laptop's GPU ("RTX 3080 Laptop", "RTX 4090 Mobile") is another part than the desktop card
# of its name: fewer SMs, another memory bus and clock.
TIER_WORDS = frozenset({"pro", "max", "ultra", "super", "ti", "xt", "xtx", "laptop", "mobile"})


def _names_another_tier(alias_words: list[str], text_words: list[str]) -> bool:
    """Whether the text (its words in order) follows the alias's last word with a tier word
    the alias lacks."""
    last = alias_words[-1] if alias_words else ""
    return any(
        word == last and following in TIER_WORDS and following not in alias_words
        for word, following in itertools.pairwise(text_words)
    )


def _match(kind: type[Device], text: str) -> Device:
    """The device whose longest name or alias occurs in `text` (case-insensitive) as a
    string, else as words in any order ("Apple M3 Ultra Mac Studio 512GB" names the "Mac
    Studio M3 Ultra 512GB"), unless the text names another tier of it (`TIER_WORDS`). A name
    found as a string wins over one found as scattered words: "MacBook Pro M1 Max" holds the
    words of "Apple M1 Pro" but names the M1 Max."""
    best: tuple[tuple[bool, int], Device] | None = None
    text_words = _ordered_words(text)
    words = set(text_words)
    for candidate in devices(kind):
        for alias in _names(candidate):
            alias_words = _ordered_words(alias)
            as_string = alias.lower() in text.lower()
            found = as_string or set(alias_words) <= words
            found = found and not _names_another_tier(alias_words, text_words)
            rank = (as_string, len(alias))
            if found and (best is None or rank > best[0]):
                best = (rank, candidate)
    if best is None:
        raise NotModeled(f"no datasheet entry in the device table for {text!r}")
    return best[1]


# A family name and its generation are one word however a source spaces them: "Qwen 3 30B",
# "Qwen3-30B" and "qwen3 30b" name one model, as "Llama 3.1", "Llama-3.1" and "llama3.1" do.
FAMILY_GENERATION = re.compile(
    r"\b(qwen|llama|gemma|phi|glm|mistral|ministral|deepseek|olmo) (?=\d)"
)


def _spaced(name: str) -> str:
    """Lower case, '-', '_', ':' (Ollama's tags), '/' (Hugging Face's owner/name) and
    brackets as spaces, runs of spaces as one, a family joined to its generation
    (`FAMILY_GENERATION`): "Meta-Llama-3.1-8B", "llama-3.1:8b", "meta-llama/Llama-3.1-8B"
    and "llama 3.1 8b" read alike."""
    spaced = " ".join(re.sub(r"[-_:/(),]", " ", name.lower()).split())
    return FAMILY_GENERATION.sub(r"\1", spaced)


@cache
def _alias_table() -> tuple[tuple[str, str, str], ...]:
    """(alias, alias as `_spaced` spells it, slug) for `MODEL_ALIASES` and every shipped
    model by its own slug ("glm-4.7"), except slugs a sized alias must tell apart by
    parameter count; built once, every row reads it."""
    sized = {_spaced(alias) for alias in SIZED_ALIASES}
    own = {slug: slug for slug in model_slugs() if _spaced(slug) not in sized}
    return tuple((alias, _spaced(alias), slug) for alias, slug in {**own, **MODEL_ALIASES}.items())


def model_slug(row: MeasurementRow) -> str:
    """The shipped model the row's model name names (the longest alias found in it); a name
    that fits several (llama-bench's "llama 70B") takes the one whose parameter count the
    row states."""
    name = f" {_spaced(row.model)} "
    hits = [entry for entry in _alias_table() if f" {entry[1]} " in name]
    if hits:
        alias, _, slug = max(hits, key=lambda entry: len(entry[1]))
        if " distill " in name and "distill" not in alias:
            # "DeepSeek-R1-Distill-Qwen-7B" is a Qwen model taught by R1: the base's shape
            raise NotModeled(
                f"{row.model!r} is distilled into another base model, whose shape the name "
                f"{alias!r} does not give"
            )
        return slug
    sized = [alias for alias in SIZED_ALIASES if f" {_spaced(alias)} " in name]
    if sized:
        return _slug_by_params(row, SIZED_ALIASES[max(sized, key=len)])
    raise NotModeled(f"no shipped model config for {row.model!r}")


def _slug_by_params(row: MeasurementRow, slugs: tuple[str, ...]) -> str:
    """The one of `slugs` whose parameter count is within PARAMS_MATCH_RTOL of the row's."""
    stated = row.params_total_b
    if stated is None and len(slugs) == 1 and not PRUNED.search(_spaced(row.model)):
        return slugs[0]  # one model of the name, and the name says nothing was cut from it
    if stated is None:
        raise NotModeled(
            f"{row.model!r} fits {', '.join(slugs)}, and the row states no parameter count "
            "to tell them apart"
        )
    fits = [
        s for s in slugs if abs(model_params(load_model(s)) / 1e9 / stated - 1) <= PARAMS_MATCH_RTOL
    ]
    if len(fits) != 1:
        raise NotModeled(
            f"{row.model!r} with {stated} B parameters fits {len(fits)} of {', '.join(slugs)}"
        )
    return fits[0]


# Spellings sources use for tokens per second ("t/s", "tok/sec", "tokens per second", "TPS",
# "toks/sec", "tok/s (prompt_tps)", Hugging Face Trainer's "train_tokens_per_second",
# "tokens/GPU/s"): the unit stays as published, the engine reads it so.
TOKENS_PER_S = re.compile(
    r"^\s*(?:(?:median|mean|average|avg)\s+)?"
    r"(?:(?:t|tok|toks|token|tokens)\s*(?:/|-per-|\s+per\s+)\s*(?:s|sec|second)|tps"
    r"|train_tokens_per_second|tokens\s*/\s*GPU\s*/\s*s)\b",
    re.IGNORECASE,
)


PER_GPU = re.compile(
    r"(?:/\s*(?:GPU|device)|per\s+(?:GPU|device)|tokens\s*/\s*GPU\s*/\s*s)\b", re.IGNORECASE
)
# "tok/s/user", "TPS/user", "per-user output throughput": one request's share of a serving run.
PER_USER = re.compile(r"(?:/\s*user|per[\s-]+user)\b", re.IGNORECASE)


# Thousands of tokens per second ("k TPS (published as '8.6k')", "k Tok/s").
THOUSAND_TOKENS_PER_S = re.compile(r"^\s*k\s*(?:TPS|tok/s|tokens/s)\b", re.IGNORECASE)


# A time per token ("ms/token", "ms per token", "s/tok", llama.cpp's "ms per token" timings):
# for one sequence decoding (or a prompt's tokens) the inverse of its tokens per second; the
# number is the unit's seconds (1000 for ms).
LATENCY_PER_TOKEN = re.compile(
    r"^\s*(?P<unit>ms|s|sec|us|µs)\s*(?:/|\s+per\s+)\s*(?:token|tok)\b", re.IGNORECASE
)
LATENCY_SCALE = {"ms": 1000.0, "s": 1.0, "sec": 1.0, "us": 1e6, "µs": 1e6}


def latency_scale(unit: str) -> float | None:
    """The unit's time per second ("ms/token": 1000) when it is a time per token, else None."""
    found = LATENCY_PER_TOKEN.match(unit)
    return LATENCY_SCALE[found["unit"].lower()] if found else None


def _single_stream_latency(row: MeasurementRow) -> bool:
    """A time per token the engine reads as a speed: one sequence's decode or prompt (a
    serving run's time per output token holds its batch's and its prefills' share)."""
    phase = row.workload.get("phase")
    batch = row.workload.get("batch", 1)
    return (
        latency_scale(row.unit) is not None
        and phase in ("decode", "prefill")
        and batch in (1, None)
    )


def is_tokens_per_s(unit: str) -> bool:
    """Tokens per second, of the machine or (`per_gpu`) of each of its GPUs, or thousands of
    them."""
    return (
        unit == SPEED_UNIT
        or TOKENS_PER_S.match(unit) is not None
        or THOUSAND_TOKENS_PER_S.match(unit) is not None
    )


def tokens_per_s_scale(unit: str) -> float:
    """What the published number is multiplied by to give tokens/s (1000 for "k TPS")."""
    return 1000.0 if THOUSAND_TOKENS_PER_S.match(unit) else 1.0


def per_gpu(unit: str) -> bool:
    """ "tokens/s/GPU", "tokens per second per GPU": the machine's figure over its GPUs."""
    return PER_GPU.search(unit) is not None


def per_user(unit: str) -> bool:
    """ "tok/s/user": what one of the run's concurrent requests sees, the run's output tokens/s
    over its requests (in steady continuous batching each request's time per output token
    holds its share of the other requests' prefills as well as the decode steps)."""
    return PER_USER.search(unit) is not None


def runtime_of(row: MeasurementRow) -> str:
    """The runtime family the row's engine string names (whole words; first marker wins)."""
    engine = row.engine.lower()
    for marker, runtime in RUNTIME_MARKERS:
        # a whole word, or one followed by its version ("llamafile-0.7"), not by another
        # name ("vllm-mlx" is not vLLM)
        if re.search(rf"(?<![\w-]){re.escape(marker)}(?!\w|-[^\W\d])", engine):
            return runtime
    raise NotModeled(f"no efficiency constants for the runtime {row.engine!r}")


MLX_BITS = re.compile(r"(?<![\d.])([2-8])[- ]?bit\b", re.IGNORECASE)
# An MLX quant mixing bit widths per tensor, named by its mean ("4.5 bit"): its base is the
# whole bits' affine type, its bytes the bits per weight the row states ("4.538 bpw").
MLX_MIXED_BITS = re.compile(r"(?<![\d.])([2-8])\.\d+[- ]?bit\b", re.IGNORECASE)
STATED_BPW = re.compile(r"(\d+(?:\.\d+)?)\s*bpw\b", re.IGNORECASE)
# "i1-Q4_K_M": mradermacher's name for a quant chosen with an importance matrix; the file's
# type is the one named after the prefix.
IMATRIX_PREFIX = re.compile(r"^i1-", re.IGNORECASE)


# Checkpoints their makers release in one precision only, for a checkpoint runtime's row that
# serves the checkpoint as released without restating its quantization. DeepSeek-V3's
# architecture (V3, R1, V3.1, V3.2): "Since FP8 training is natively adopted in our framework,
# we only provide FP8 weights" (deepseek-ai/DeepSeek-V3, README.md, read 2026-12-07).
RELEASED_WEIGHTS = {"deepseek-v3": "FP8", "deepseek-v3.2": "FP8"}
AS_RELEASED = re.compile(r"checkpoint as released|original checkpoint|official checkpoint")


def _released_weights(row: MeasurementRow) -> str | None:
    """The weight type of the checkpoint a vLLM or SGLang row serves as released, where the
    row states no quantization and the checkpoint comes in one precision only."""
    if row.quant.strip().lower() != "not stated" or runtime_of(row) not in (VLLM, SGLANG):
        return None
    if AS_RELEASED.search(row.caveats.lower()) is None:
        return None
    try:
        return RELEASED_WEIGHTS.get(model_slug(row))
    except NotModeled:
        return None


def _quant(row: MeasurementRow, moe: bool) -> object:
    """The weight types the row's quantization names. MLX spells its affine formats by their
    bits ("4-bit", "mlx-community/...-4bit"): MLX4 etc.; "16-bit" is BF16. An unpublished
    mix is its base type (`_mix_base`), scaled to the file size in `_weights`."""
    if (released := _released_weights(row)) is not None:
        return released
    if runtime_of(row) == MLX and (mixed := MLX_MIXED_BITS.search(row.quant)):
        return f"MLX{mixed.group(1)}"
    if runtime_of(row) == MLX and (bits := MLX_BITS.search(f"{row.quant} {row.model}")):
        return f"MLX{bits.group(1)}"
    if re.search(r"\b16[- ]?bit\b", row.quant, re.IGNORECASE):
        return "BF16"
    if row.quant.split()[0].strip().upper() == "FP16":  # IEEE half, ggml's F16
        return "F16"
    name = _mix_base(row.quant) or IMATRIX_PREFIX.sub("", row.quant.split()[0].strip())
    if moe and name.upper() in EXPERT_ONLY_TYPES:
        return {"default": "Q8_0", "experts": name}
    return name


# Mixes whose per-tensor types are not published, by the base type their name gives:
# Unsloth's dynamic quants ("UD-Q4_K_XL": Q4_K), ubergarm's "mix-IQ3_K", llama.cpp's _M/_L
# K-quant mixes without a published whole-file bpw, repacked rows ("Q2_K_R4"), a custom
# mix llama-bench reports by the type of its first tensor, and a "custom IQ4_XS experts / Q5_K
# attn" recipe by the type it names first.
MIX_NAMES_IN_TEXT = (  # searched in the whole quantization text
    re.compile(r"llama-bench(?: as|:)\s*(\w+)", re.IGNORECASE),
    re.compile(r"^custom\s+(\w+)", re.IGNORECASE),
)
MIX_NAMES_AS_TYPE = (  # matched against its first word, the type's name
    re.compile(r"^UD-(\w+?)(?:_X+L)?$", re.IGNORECASE),
    re.compile(r"^mix-(\w+)$", re.IGNORECASE),
    re.compile(r"^(Q\d_K)_(?:M|R4|R8)$", re.IGNORECASE),
    re.compile(r"^(\w+?)/\w+$"),  # "IQ4_K_R4/IQ5_K_R4": experts of two types, the first's
)


# llama.cpp's file types (GGUF ftypes: Q4_K_M, IQ3_XXS, ...) name a recipe that mixes tensor
# types (token embeddings, attention and some FFN tensors at other bits), so a GGUF file's
# bytes are its stated size, not its type's nominal bits per weight times the parameters.
GGUF_TYPE = re.compile(r"^(?:I?Q\d|TQ\d)", re.IGNORECASE)


def _mix_base(quant: str) -> str | None:
    """The base type of an unpublished mix's name; None for a published type. A GGUF file
    type with the file's size stated is read as a mix of its type, scaled to that size."""
    first = quant.split()[0].strip() if quant.split() else ""
    if first.upper() in PUBLISHED_TYPES:
        if GGUF_TYPE.match(first) and FILE_SIZE.search(quant):
            return first
        return None
    searches = [(pattern, quant) for pattern in MIX_NAMES_IN_TEXT]
    searches += [(pattern, first) for pattern in MIX_NAMES_AS_TYPE]
    for pattern, text in searches:
        found = pattern.search(text)
        if found:
            return _printed_type(quant, found.group(1))
    return None


# The type llama-bench prints for the file ("UD-Q8_K_XL (Q8_0, 12.07 GiB)"): llama.cpp's
# name for the file's ftype, its most common tensor type.
PRINTED_TYPE = re.compile(r"\(([A-Z0-9_]+)\b")


def _printed_type(quant: str, base: str) -> str:
    """`base`, or where it names no weight type (Unsloth's "UD-Q8_K_XL": Q8_K is only ggml's
    intermediate for dot products) the type the row prints beside the name."""
    if base.upper() in PUBLISHED_TYPES:
        return base
    printed = PRINTED_TYPE.search(quant)
    if printed is not None and printed.group(1).upper() in PUBLISHED_TYPES:
        return printed.group(1)
    return base


PUBLISHED_TYPES = frozenset(name.upper() for name in WEIGHT_TYPES)
FILE_SIZE = re.compile(r"([\d.]+)\s*(GiB|GB)\b")


def _weights(row: MeasurementRow, model: ModelShape) -> WeightScheme:
    """The row's weight scheme; an unpublished mix scaled to the file size it states
    (serve/file_size.py), not modeled without one."""
    scheme = weight_scheme(_quant(row, model.is_moe))
    if runtime_of(row) == MLX and MLX_MIXED_BITS.search(row.quant):
        bpw = STATED_BPW.search(row.quant)
        if bpw is None:
            raise NotModeled(
                f"{row.quant!r} mixes bit widths per tensor: its bytes are the bits per weight "
                "it averages, which the row does not state"
            )
        averaged = float(bpw.group(1)) / 8 * model_params(model)
        return scaled_to_file(scheme, model_parts(model), averaged)
    if _mix_base(row.quant) is None:
        return scheme
    file_bytes = _file_bytes(row)
    if file_bytes is None:
        raise NotModeled(
            f"{row.quant.split()[0]!r} is a mix whose per-tensor types are not published: its "
            "bytes are the file's size, which the row does not state"
        )
    return scaled_to_file(scheme, model_parts(model), file_bytes)


FILE_BYTES = re.compile(r"^(\d+)\s*B$")  # llama-bench's JSON model_size, in bytes


def _file_bytes(row: MeasurementRow) -> float | None:
    """The model file's bytes: stated in `quant` ("(20.81 GiB)") or in `file_size`."""
    for text in (row.quant, row.file_size):
        size = FILE_SIZE.search(text)
        if size is not None:
            return float(size.group(1)) * (GIB if size.group(2) == "GiB" else 1e9)
    exact = FILE_BYTES.match(row.file_size.strip())
    return float(exact.group(1)) if exact else None


def _int_after(pattern: str, text: str) -> int | None:
    found = re.search(pattern, text, flags=re.IGNORECASE)
    return int(found.group(1)) if found else None


def _ubatch_of(row: MeasurementRow) -> int | None:
    """llama.cpp's micro-batch (`-ub N`, "ub N", "ubatch N"), if the row states it."""
    text = f"{row.engine} {row.workload.get('test', '')}"
    return _int_after(r"(?:\bub|\bubatch|-ub|n_ubatch)\s*=?\s*(\d+)", text)


# A prompt's length as a benchmark script prints it rounded ("prompt tokens '21K' (as
# printed)"): thousands of tokens, a count rounded for display (not a power-of-two size).
PRINTED_PROMPT = re.compile(r"prompt tokens '(\d+(?:\.\d+)?)k'")


def _prompt_tokens(row: MeasurementRow) -> int | None:
    """The prompt's tokens: stated as a number, or as a script printed it rounded."""
    stated = row.workload.get("prompt_tokens")
    if isinstance(stated, int) and not isinstance(stated, bool):
        return stated
    printed = PRINTED_PROMPT.search(str(row.workload.get("test", "")).lower())
    return round(float(printed.group(1)) * 1000) if printed else None


def _stated_depth(row: MeasurementRow) -> int:
    """The tokens already in the cache as the row states them (0 if it states none)."""
    depth = row.workload.get("context_depth", 0) or 0
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise NotModeled(f"the row's context depth is not a count of tokens: {depth!r}")
    return depth


def _phase_tokens(row: MeasurementRow) -> tuple[str, int, int]:
    """("prefill", prompt tokens, depth) or ("decode", mean context, 0) from the row's
    workload. llama-bench's `@ dN` (or a stated `context_depth`) is the tokens already in the
    cache: a prompt is processed after them, a tgN generates after them."""
    w = row.workload
    test = str(w.get("test", "")).lower()
    depth = _int_after(r"@\s*d(\d+)", test) or _stated_depth(row)
    if isinstance(w.get("context"), int):  # stated outright (seed rows)
        return "decode", int(w["context"]), 0
    if (n := _int_after(r"^pp(\d+)", test)) is not None:
        if _ubatch_of(row) == 1:  # one token per evaluation: a decode step at each position
            return "decode", depth + n // 2, 0
        return "prefill", n, depth
    if (n := _int_after(r"^tg(\d+)", test)) is not None:
        return "decode", depth + n // 2, 0
    phase = str(w.get("phase", ""))
    if phase == "prefill":
        tokens = _prompt_tokens(row) or _int_after(r"(\d+)-token prompt", str(w.get("notes")))
        if not isinstance(tokens, int):
            raise NotModeled("prefill row without a prompt length")
        return "prefill", tokens, depth
    if phase == "decode" and int(w.get("batch", 1) or 1) == 1:
        prompt, gen = _prompt_tokens(row), w.get("gen_tokens")
        if isinstance(prompt, int) and isinstance(gen, int):  # the mean context of the run
            return "decode", depth + prompt + gen // 2, 0
        return "decode", depth + DEFAULT_DECODE_CONTEXT, 0
    if phase.startswith("decode") and isinstance(w.get("batch"), int):  # batched decode
        prompt, gen = int(w.get("prompt_tokens", 0) or 0), int(w.get("gen_tokens", 0) or 0)
        return "decode", depth + prompt + gen // 2, 0
    raise NotModeled(f"workload phase {phase!r} is not prefill or decode of one sequence")


def _rpc(row: MeasurementRow) -> bool:
    """llama.cpp's RPC backend (llama-bench `--rpc`, a backend column "Vulkan,RPC")."""
    return bool(re.search(r"\brpc\b", row.engine.lower()))


def _names_discrete_gpu(row: MeasurementRow) -> bool:
    """Whether the row's `gpu` is a discrete card of the device table (not an integrated GPU
    the table holds as a system)."""
    try:
        _match(Gpu, str(row.hardware.get("gpu") or ""))
    except NotModeled:
        return False
    return True


def _machine_count(row: MeasurementRow) -> int:
    """The machines of a system given as "N x …" (a cluster), else 1."""
    return _int_after(r"^\s*(\d+)\s*x\s", str(row.hardware.get("system", ""))) or 1


def _network_gbit_per_s(row: MeasurementRow) -> float | None:
    """The network between the machines as the row states it ("50 Gbps Ethernet", "USB4
    (~9.4 Gbps effective)"), gigabits per second; None when not stated."""
    found = re.search(r"(\d+(?:\.\d+)?)\s*gbps", str(row.hardware.get("interconnect", "")).lower())
    return float(found.group(1)) if found else None


def _interconnect_gbps(row: MeasurementRow) -> float | None:
    """GPU-to-GPU bandwidth per direction: the board's NVLink (SXM/HGX parts, from the device
    table) unless the row says its GPUs talk over PCIe; None (PCIe) for one GPU."""
    device = _match(Gpu, str(row.hardware["gpu"]))
    stated = f"{row.hardware.get('interconnect', '')} {row.engine}".lower()
    if int(row.hardware.get("gpu_count", 1) or 1) < 2 or "pcie" in stated:
        return None
    return device.nvlink_gbps


def _gpus(row: MeasurementRow) -> tuple[GpuSpec, int]:
    """The row's GPU model from the device table, and how many."""
    device = _match(Gpu, str(row.hardware["gpu"]))
    fp8 = row.quant.upper().startswith("FP8") and "llama.cpp" not in row.engine.lower()
    if fp8 and device.fp8_tflops is None:
        raise NotModeled(
            f"FP8 runs FP8 GEMMs (vLLM, SGLang, TensorRT-LLM, Transformer Engine): the device "
            f"table has no FP8 peak for the {device.name}"
        )
    return gpu_spec(device), _gpu_count(row)


# A count written with the GPU's name ("2x RTX 3090", "RTX 4090 x4", "RTX 3090 (4x)").
GPU_COUNT_IN_NAME = re.compile(
    r"^\s*(\d+)\s*[x×]\s+|\s[x×]\s*(\d+)\s*$|\((\d+)\s*[x×]\)", re.IGNORECASE
)


def _gpu_count(row: MeasurementRow) -> int:
    """`gpu_count` as stated, else a count written with the GPU's name, else one."""
    stated = row.hardware.get("gpu_count")
    if stated is not None:
        return int(stated or 1)
    written = GPU_COUNT_IN_NAME.search(str(row.hardware.get("gpu", "")))
    return int(next(group for group in written.groups() if group)) if written else 1


def sockets_of(row: MeasurementRow) -> int:
    stated = row.hardware.get("sockets")
    if isinstance(stated, int) and not isinstance(stated, bool) and stated >= 1:
        return stated
    return 2 if "2 sockets" in str(row.hardware.get("notes", "")) else 1


def _ram_gib(ram: str) -> float:
    """The RAM a row states, in GiB as its figure reads: the largest of its totals ("512GB",
    "1TB", "8x 32GB" = 256, "8x 32GB DDR5-6000 (256GB)" = 256), a module's size never being
    more than the total; 1,024 when it states none (RAM then limits nothing)."""
    totals = [int(n) * 1024 for n in re.findall(r"(\d+)\s*TB", ram, re.IGNORECASE)]
    totals += [int(n) for n in re.findall(r"(\d+)\s*GB", ram, re.IGNORECASE)]
    totals += [
        int(count) * int(size)
        for count, size in re.findall(r"(\d+)\s*[x×]\s*(\d+)\s*GB", ram, re.IGNORECASE)
    ]
    return float(max(totals, default=1024))


THREADS = re.compile(r"(?:^|[ (,])(?:-t|--threads)[ =](\d+)\b|\b(\d+) (?:cpu )?threads\b")


def _cpu(row: MeasurementRow, runtime: str) -> tuple[CpuSpec, float]:
    """The CPU and RAM in GiB. Several sockets add their cores; their memory bandwidth adds
    only for runtimes that keep a copy of the weights on every NUMA node
    (`NUMA_REPLICATING_RUNTIMES`): otherwise pages sit where they were first touched and the
    other socket's threads read them over the inter-socket link (docs/model.md, "Sockets")."""
    device = _match(Cpu, str(row.hardware.get("cpu", "")))
    sockets = sockets_of(row)
    ram_gib = _ram_gib(str(row.hardware.get("ram", "")))
    bandwidth_sockets = sockets if runtime in NUMA_REPLICATING_RUNTIMES else 1
    if sockets > 1 and bandwidth_sockets == 1 and "numa" not in _row_text(row):
        raise NotModeled(
            f"{sockets} sockets and no NUMA policy stated (numactl --interleave, llama.cpp "
            "--numa distribute, or first touch on one node): the policy sets how much of the "
            "sockets' memory bandwidth the threads draw"
        )
    threads = row.hardware.get("threads")
    if threads is None:  # as the command line or the prose says it ("-t 6", "6 CPU threads")
        said = THREADS.search(_row_text(row))
        threads = int(said.group(1) or said.group(2)) if said else None
    if isinstance(threads, int) and not isinstance(threads, bool) and threads < device.cores:
        raise NotModeled(
            f"the row runs {threads} threads on {device.cores * sockets} cores: how much of "
            "the memory bandwidth so few cores draw is not in the device table"
        )
    cpu = CpuSpec(
        name=f"{sockets}x {device.name}",
        cores=device.cores * sockets,
        mem_gbps=device.mem_gbps * bandwidth_sockets,
        flops_per_core_cycle=float(device.flops_per_core_cycle),
        ghz=float(device.all_core_ghz),
    )
    return cpu, ram_gib


def _system_text(row: MeasurementRow) -> str | None:
    """The row's unified-memory machine: its `soc` or `system`, or a `gpu` that names an
    integrated GPU the device table holds as a system (Radeon 8060S, Strix Halo)."""
    stated = row.hardware.get("soc") or row.hardware.get("system")
    if stated:
        return str(stated)
    gpu = str(row.hardware.get("gpu") or "")
    if not gpu:
        return None
    try:
        _match(Gpu, gpu)
    except NotModeled:
        try:
            _match(System, gpu)
        except NotModeled:
            return None
        return gpu
    return None


def _unified(row: MeasurementRow) -> UnifiedSpec:
    text = str(_system_text(row))
    device = _match(System, text)
    mem_gb = _int_after(r"(\d+)\s*GB", text) or 128
    return UnifiedSpec(
        name=device.name,
        mem_gib=float(mem_gb),
        mem_gbps=float(device.mem_bandwidth_gbps),
        tflops=float(device.gpu_tflops),
        maker=device.manufacturer,
        mem_sustained_gbps=device.mem_sustained_gbps,
    )


def _backend_on(runtime: str, unified: UnifiedSpec) -> str:
    """llama.cpp on Apple silicon is its Metal backend: "On MacOS, Metal is enabled by default"
    (llama.cpp docs/build.md, "Metal Build"), so a row that names only llama.cpp on an Apple
    system ran Metal; on a GB10 or Strix Halo the name stays (CUDA; Vulkan rows say so)."""
    if runtime == LLAMA_CPP and unified.maker == APPLE:
        return LLAMA_CPP_METAL
    return runtime


def _experts_on_cpu(row: MeasurementRow) -> bool:
    """llama.cpp's expert offload: a tensor override sending FFN/expert tensors to the CPU
    (`-ot exps=CPU`, `-ot blk.12-93.ffn=CPU`) or `--cpu-moe` / `--n-cpu-moe N`."""
    engine = row.engine.lower()
    return bool(
        row.hardware.get("gpu")
        and row.hardware.get("cpu")
        and re.search(
            r"(?:-ot|--override-tensor)\b[^,;)]*=cpu|--(?:n-)?cpu-moe|-ncmoe|rest ffn=cpu", engine
        )
    )


def _offload_from_layer(row: MeasurementRow, num_layers: int) -> int | None:
    """The first layer whose routed experts sit in RAM: every MoE layer's for `exps=CPU` or
    `--cpu-moe` (None: from the first MoE layer), from N for `blk.N-M.ffn=CPU` reaching the
    last layer, from N + 1 for `blk.0-N.ffn=CUDA0, rest ffn=CPU`, the last N layers' for
    `--n-cpu-moe N` (the same count of experts in RAM)."""
    engine = row.engine.lower()
    if (n := _int_after(r"--n-cpu-moe\s+(\d+)", engine)) is not None:
        return max(0, num_layers - n)
    # "-ot blk.0-15.ffn=CUDA0, rest ffn=CPU": the first layers' FFNs kept on the GPU
    if (kept := _int_after(r"blk\.0-(\d+)\.ffn[^=]*=cuda\d*,\s*rest ffn=cpu", engine)) is not None:
        return kept + 1
    span = re.search(r"blk\.(\d+)-(\d+)\.ffn[^=]*=cpu", engine)
    if span and int(span.group(2)) >= num_layers - 1:
        return int(span.group(1))
    if span:
        raise NotModeled("the row overrides a middle range of layers' experts to the CPU")
    return None


def _repacked(row: MeasurementRow) -> bool:
    """ik_llama.cpp's run-time repack (`-rtr`) or a repacked `_R4`/`_R8` weight type: CPU-only
    row-interleaved layouts (ik_llama.cpp has no CUDA kernels for them), so a hybrid's
    offloaded experts are multiplied on the CPU at prefill too."""
    said = f"{row.engine} {row.caveats} {row.quant}".lower()
    return bool(re.search(r"(?<![\w-])-rtr\b|_r[48]\b", said))


def infer_setup(row: MeasurementRow) -> InferSetup:
    runtime = runtime_of(row)
    model = load_model(model_slug(row))
    serving = row.workload.get("phase") == "serving"
    if serving:
        lengths = _serving_lengths(row)
        assert lengths is not None  # _unmodeled_reason refused the row otherwise
        prompt, gen = lengths
        phase, tokens, depth = "serving", prompt, 0
        stated = _serving_concurrency(row)
        rate = _request_rate(row)
        if stated is None:
            batch = _offline_concurrency(row, runtime, model, prompt, gen)
        elif _admits_by_kv_pool(row, runtime):
            batch = _offline_concurrency(row, runtime, model, prompt, gen, queued=stated)
        else:
            batch = stated
    else:
        phase, tokens, depth = _phase_tokens(row)
        # decode of several sequences at once: the batch, or the requests in flight
        batch = int(row.workload.get("batch") or row.workload.get("concurrency") or 1)
        gen, rate = 0, None
    kv_in_host_ram = _kv_cache_on_cpu(row)
    gpu_layers = _gpu_layers(row, model.num_layers)
    if _system_text(row) is not None:
        unified = _unified(row)
        machines = _machine_count(row)
        hardware = Hardware(
            unified=unified,
            ram_gib=0.0,
            machines=machines,
            network_gbit_per_s=_network_gbit_per_s(row) if machines > 1 else None,
        )
        placement = "unified"
        runtime = _backend_on(runtime, unified)
    elif "gpu" not in row.hardware and row.hardware.get("cpu"):
        cpu, ram_gib = _cpu(row, runtime)
        hardware, placement = Hardware(cpu=cpu, ram_gib=ram_gib), "cpu"
    elif runtime == KTRANSFORMERS or _experts_on_cpu(row):
        gpu, count = _gpus(row)
        cpu, ram_gib = _cpu(row, runtime)
        hardware = Hardware(
            gpu=gpu, gpu_count=count, cpu=cpu, ram_gib=ram_gib, link_gbps=gpu.pcie_gbps
        )
        placement = "hybrid"
    elif kv_in_host_ram or gpu_layers is not None:
        gpu, count = _gpus(row)
        if not row.hardware.get("cpu"):
            raise NotModeled(
                "the KV cache in host RAM, and the row names no CPU: the CPU holds the cache "
                "and computes the attention over it"
                if kv_in_host_ram
                else "whole layers in host RAM (a partial -ngl), and the row names no CPU: "
                "the CPU holds those layers and computes them"
            )
        cpu, ram_gib = _cpu(row, runtime)
        hardware = Hardware(
            gpu=gpu, gpu_count=count, cpu=cpu, ram_gib=ram_gib, link_gbps=gpu.pcie_gbps
        )
        placement = "gpu"
    else:
        gpu, count = _gpus(row)
        hardware = Hardware(
            gpu=gpu,
            gpu_count=count,
            ram_gib=0.0,
            link_gbps=gpu.pcie_gbps,
            interconnect_gbps=_interconnect_gbps(row),
        )
        placement = "gpu"
    workload = InferWorkload(
        model=model_as_run(model, runtime),
        quant=_weights(row, model),
        placement=placement,
        context=tokens + gen if serving else tokens if phase == "decode" else tokens + depth,
        prompt_tokens=tokens,
        prefill_depth_tokens=depth,
        batch=batch if phase in ("decode", "serving") else 1,
        tensor_parallel=_tensor_parallel(row) if placement == "gpu" else 1,
        ubatch=_ubatch_of(row)
        or (max(DEFAULT_UBATCH, tokens) if runtime == KTRANSFORMERS else DEFAULT_UBATCH),
        runtime=runtime,
        offload_from_layer=_offload_from_layer(row, model.num_layers)
        if placement == "hybrid" and runtime != KTRANSFORMERS
        else None,
        repacked_experts=placement == "hybrid" and _repacked(row),
        sparse_attention=False if _dense_fallback(row) else None,
        kv_cache_on_cpu=kv_in_host_ram and placement in ("gpu", "hybrid"),
        gpu_layers=gpu_layers if placement == "gpu" else None,
        output_tokens=gen if serving else None,
        request_rate_per_s=rate,
        requests=_rated_requests(row) if rate is not None else None,
    )
    request = SimulationRequest(workload=workload, hardware=hardware)
    total = "total" in row.metric.lower()
    return InferSetup(request=request, phase=phase, total=total)


def _rated_requests(row: MeasurementRow) -> int | None:
    """How many prompts a run sent at its rate (`--num-prompts`); None: not stated."""
    requests = row.workload.get("num_prompts")
    return requests if isinstance(requests, int) and not isinstance(requests, bool) else None


# The KV cache in host RAM with the weights on the GPU (llama.cpp --no-kv-offload / -nkvo,
# `offload_kqv` false, or a build before the cache moved to VRAM, PR #1827): placement.py's
# `kv_in_host_ram`. A row that also keeps attention's weights on the CPU (-ot attn=CPU), or
# whole layers (a partial -ngl), is another placement.
KV_CACHE_IN_HOST_RAM = re.compile(
    r"-nkvo\b|--no-kv-offload|kv cache (?:kept )?in host ram|kv cache not in vram"
)
ATTENTION_WEIGHTS_ON_CPU = re.compile(r"\battn=cpu\b")
# Whole layers on the GPU, the rest in host RAM (placement.split_layers): llama.cpp's "-ngl N"
# counts the LM head as a layer (llama_model::load_tensors: i_gpu_start = n_layer + 1 − N, the
# output layer on the GPU from N = 1), so N − 1 decoder layers; "N layers on GPU" as said.
NGL = re.compile(r"(?:-ngl|--n-gpu-layers|--gpu-layers)[ =](\d+)\b")
LAYERS_ON_GPU = re.compile(r"\b(\d+) (?:full )?layers on (?:the )?gpu\b")


def _gpu_layers(row: MeasurementRow, layers: int) -> int | None:
    """The decoder layers a partial offload keeps on the GPU, as the row states them; None
    when it keeps them all (an -ngl of at least the layers, 99, 999) or states none."""
    text = _row_text(row)
    said = LAYERS_ON_GPU.search(text)
    if said is not None:
        count = int(said.group(1))
    else:
        flag = NGL.search(text)
        if flag is None or int(flag.group(1)) == 0:
            return None
        count = int(flag.group(1)) - 1
    return count if 1 <= count < layers else None


def _kv_cache_on_cpu(row: MeasurementRow) -> bool:
    return bool(KV_CACHE_IN_HOST_RAM.search(_row_text(row)))


# A sparse runtime that ran a sparse-attention model's attention dense, as the row says
# (SGLang bypasses its DSA backends on SM120 GPUs; no lightning indexer on Apple silicon).
DENSE_FALLBACK = re.compile(
    r"attention runs as dense mla|bypasses dsa|use full attention|dense attention fallback"
)


def _dense_fallback(row: MeasurementRow) -> bool:
    return bool(DENSE_FALLBACK.search(f"{_row_text(row)} {row.caveats.lower()}"))


def stated_peak_gib(row: MeasurementRow) -> float | None:
    """The row's peak GPU memory in GiB ("30.3 GiB", "44.8 GB per GPU"), None if unstated."""
    found = re.search(r"([\d.]+)\s*(GiB|GB)", row.peak_memory)
    if not found:
        return None
    value = float(found.group(1))
    return value if found.group(2) == "GiB" else value * 1e9 / GIB


def checkpointing_of(row: MeasurementRow, workload: TrainWorkload, hardware: Hardware) -> bool:
    """Whether the row's run recomputed activations: as the row states it
    (`gradient_checkpointing`, the name transformers, axolotl and Unsloth give the setting);
    else the setting whose engine peak memory (all layers resident, the row's batch) lies
    nearer the peak the row states. Checkpointing is the setting that moves peak memory most;
    torchtune's recipes enable it by default, which is the answer when the row states neither
    or only one setting fits."""
    stated_setting = row.workload.get("gradient_checkpointing")
    if isinstance(stated_setting, bool):
        return stated_setting
    stated = stated_peak_gib(row)
    pipeline = workload.parallelism == PIPELINE and not workload.full_finetune
    peak = resident_peak_gib if pipeline else data_parallel_peak_gib
    peaks = {
        on: peak(replace(workload, activation_checkpointing=on), hardware) for on in (True, False)
    }
    fitting = {on: peak for on, peak in peaks.items() if peak is not None}
    if stated is None or len(fitting) < 2:
        return True
    return min(fitting, key=lambda on: (abs(math.log(fitting[on] / stated)), not on))


def training_method(row: MeasurementRow) -> str:
    """ "full", "QLoRA" or "LoRA", from what the row says of its method and quantization."""
    text = f"{row.quant} {row.workload.get('method', '')}".lower()
    if "full" in text:
        return "full"
    if "qlora" in text or "nf4" in text or "4-bit" in text or "4bit" in text:
        return "QLoRA"
    return "LoRA"


# Stated parallelism → the engine's; first match wins.
PARALLELISM_MARKERS: tuple[tuple[str, str], ...] = (
    ("fsdp", FSDP),
    ("zero-3", FSDP),
    ("zero3", FSDP),
    ("zero stage 3", FSDP),
    ("ddp", DDP),
    ("zero-2", ZERO2),
    ("zero2", ZERO2),
    ("zero stage 2", ZERO2),
    ("zero-1", ZERO1),
    ("zero1", ZERO1),
    ("zero stage 1", ZERO1),
    ("distributed optimizer", ZERO1),
    ("data parallel", DDP),
    ("pipeline", PIPELINE),
    ("device_map", PIPELINE),
    ("model parallel", PIPELINE),
)


def stated_parallelism(row: MeasurementRow) -> str | None:
    """The engine's parallelism the row's text names (PARALLELISM_MARKERS), None if none."""
    stated = str(row.workload.get("parallelism") or "").lower()
    return next((p for marker, p in PARALLELISM_MARKERS if marker in stated), None)


def parallelism_of(row: MeasurementRow, runtime: str, gpu_count: int, full: bool) -> str:
    """How the row's GPUs share the work: as it states; unstated on several GPUs, torchtune's
    distributed recipes shard with FSDP (lora_finetune_distributed, full_finetune_distributed:
    FSDP2), Megatron (NeMo, Megatron-Bridge, ms-swift's megatron sft) shards the optimizer
    state with its distributed optimizer (NeMo 2's GPTModel default and its recipes'
    `distributed_fused_adam`: `use_distributed_optimizer=True`, find_string ids 3614512542 and
    13767408177), and the transformers stacks launch DDP (accelerate's default); one GPU is the
    engine's single-GPU pipeline for adapters, data parallel of one for full fine-tuning, and
    Megatron's pipeline stages run inside data parallel groups."""
    stated = stated_parallelism(row)
    if stated is not None:
        return stated
    if gpu_count > 1:
        if runtime == TORCHTUNE:
            return FSDP
        return ZERO1 if runtime == MEGATRON else DDP
    return DDP if full else PIPELINE


# A row that says its optimizer keeps no FP32 copy: "pure BF16", "no FP32 master weights",
# "bf16 Adam states", "bf16 optimizer states".
PURE_BF16 = re.compile(r"pure bf16|no fp32 master|bf16 (?:adam|optimizer|m/v) states|full bf16")
# A row whose weights are loaded in BF16 ("Full finetune (BF16)", "dtype bfloat16").
BF16_WEIGHTS = re.compile(r"\bbf16\b|\bbfloat16\b")
# Wrappers that keep FP32 master weights beside BF16 compute (DeepSpeed's bf16 mode, FSDP's
# MixedPrecision, "mixed precision" said outright).
MIXED_PRECISION = re.compile(r"deepspeed|zero|fsdp|mixed|amp\b")


def optimizer_of(row: MeasurementRow, runtime: str, full: bool, gpu_count: int) -> str:
    """The optimizer's state per trained weight. torchtune's full single-device recipe runs
    bitsandbytes' PagedAdamW8bit inside the backward (llama3_1/8B_full_single_device.yaml:
    optimizer_in_bwd: True) and its recipes train in pure BF16 (dtype: bf16). A row that says
    its states are BF16 is pure BF16, and so is a transformers full fine-tune of a model loaded
    in BF16 on one GPU without a mixed-precision wrapper: torch's AdamW makes its moments like
    the weights (`torch.zeros_like(p)`), and the Trainer keeps no FP32 copy of a BF16 model.
    The rest are mixed-precision AdamW (FP32 master weights and moments)."""
    said = f"{row.quant} {row.workload.get('method', '')} {row.workload.get('optimizer', '')}"
    said = said.lower()
    if runtime == TORCHTUNE and full and gpu_count == 1:
        return "adamw8bit-in-backward"
    if runtime == TORCHTUNE or PURE_BF16.search(said):
        return "adamw-bf16"
    wrapped = f"{row.engine} {row.workload.get('parallelism', '')} {said}".lower()
    if (
        runtime == HF_TRANSFORMERS
        and full
        and gpu_count == 1
        and BF16_WEIGHTS.search(f"{said} {row.engine.lower()}")
        and not MIXED_PRECISION.search(wrapped)
    ):
        return "adamw-bf16"
    return "adamw"


def eager_traffic_of(row: MeasurementRow, runtime: str, full: bool) -> EagerTraffic | None:
    """The unfused elementwise traffic of the row's stack. transformers runs its layers
    eagerly unless the row says it compiles them (torch.compile); with PEFT's adapters (the HF
    Trainer, TRL, LLaMA-Factory, PEFT's own benchmarks) the adapters' FP32 traffic comes on
    top (compute.PEFT_EAGER_TRAFFIC). The other stacks fuse or compile (Unsloth's kernels,
    torchtune's and NeMo's recipes): no traffic beyond their fitted FLOP rate."""
    if runtime != HF_TRANSFORMERS:
        return None
    engine = row.engine.lower()
    if "compile" in engine and "compile=false" not in engine:
        return None
    return HF_EAGER_TRAFFIC if full else PEFT_EAGER_TRAFFIC


# PEFT's target_modules as rows name them ("q_proj/v_proj"): the engine's projection names.
TARGET_NAMES = re.compile(r"\b(q|k|v|o|gate|up|down)_proj\b")


# PEFT's default target_modules when a LoraConfig names none, for the Llama, Mistral and Qwen
# families (peft/utils/constants.py, TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING:
# "llama": ["q_proj", "v_proj"], likewise "mistral", "qwen2", "qwen3").
PEFT_DEFAULT_TARGETS = ("q", "v")
MLP_TARGETS = ("gate", "up", "down")


def lora_targets_of(row: MeasurementRow, runtime: str) -> tuple[str, ...]:
    """The projections the row's adapters target: those it names ("q_proj/v_proj"), the MLP's
    for "MLP targets"; unstated, PEFT's default (q and v) under transformers + PEFT, all seven
    for the stacks whose recipes adapt every linear layer (Unsloth, torchtune, axolotl's
    examples, "all", "all-linear")."""
    text = " ".join(str(v) for v in (row.quant, *row.workload.values()))
    named = set(TARGET_NAMES.findall(text))
    if named:
        return tuple(t for t in ALL_TARGETS if t in named)
    lowered = text.lower()
    if re.search(r"\bmlp\b", lowered):
        return MLP_TARGETS
    if runtime == HF_TRANSFORMERS and not re.search(r"\ball\b", lowered):
        return PEFT_DEFAULT_TARGETS
    return ALL_TARGETS


# Parameter-efficient methods that are not LoRA's two low-rank matrices beside a frozen weight
# (PEFT's method_comparison runs each): their update costs what the engine does not count.
OTHER_PEFT_METHODS = re.compile(
    r"\b(dora|loha|lokr|oft|boft|ia3|vera|adalora|prompt tuning|prefix tuning)\b"
)


# "TP2", "tensor parallel 4", "TP=8" in a training row's parallelism: two or more GPUs share
# each layer's products.
TRAINING_TENSOR_PARALLEL = re.compile(
    r"\btp\s*=?\s*([2-9]|\d{2,})\b|tensor[- ]parallel\w*\s*=?\s*([2-9]|\d{2,})\b"
)


# "PP4", "PP=2" (Megatron's pipeline stages) and "VP20" (its interleaved chunks per GPU).
PIPELINE_STAGES = re.compile(r"\bpp\s*=?\s*(\d+)\b")
VIRTUAL_STAGES = re.compile(r"\bvpp?\s*=?\s*(\d+)\b")


def tensor_parallel_of(row: MeasurementRow) -> int:
    """The GPUs splitting each layer, as the row's parallelism states ("TP2", "TP=2",
    "tensor parallel 4"); 1 when it states none."""
    stated = str(row.workload.get("parallelism", "")).lower()
    found = TRAINING_TENSOR_PARALLEL.search(stated)
    if found is None:
        return 1
    return int(found.group(1) or found.group(2))


def pipeline_stages_of(row: MeasurementRow) -> tuple[int, int]:
    """(P, V): Megatron's pipeline stages and the chunks of layers each GPU holds, as the
    row's parallelism states ("TP1 PP2 VP20"); (1, 1) when it states none."""
    stated = str(row.workload.get("parallelism", "")).lower()
    stages, chunks = PIPELINE_STAGES.search(stated), VIRTUAL_STAGES.search(stated)
    p = int(stages.group(1)) if stages else 1
    v = int(chunks.group(1)) if chunks and p > 1 else 1
    return max(p, 1), max(v, 1)


def micro_batches_of(row: MeasurementRow, batch: int, groups: int, stages: int) -> int | None:
    """M, the micro-batches each data-parallel group runs per optimizer step: the global batch
    the row states over the micro-batch times the groups. Through pipeline stages the bubble
    depends on M, so a row with stages and no global batch is not modeled; without stages
    an unstated M is the engine's (an update per micro-batch)."""
    stated = row.workload.get("sequences_per_step")
    if isinstance(stated, int) and not isinstance(stated, bool) and stated >= batch * groups:
        return stated // (batch * groups)
    if stages > 1:
        raise NotModeled(
            f"{stages} pipeline stages and no global batch stated: the pipeline's fill and "
            "drain is (P − 1) micro-batch times a step, so its share depends on the "
            "micro-batches per step"
        )
    return None


# GPUs one training machine holds: an HGX/DGX board's eight (NVIDIA HGX A100 and H100 8-GPU).
GPUS_PER_BOARD = 8


def train_setup(row: MeasurementRow) -> TrainSetup:
    """A fine-tuning row through the training engine in refined mode: LoRA on a BF16 base is
    the engine's BF16 format, QLoRA its NF4, full fine-tuning BF16 with every weight trained;
    the row's batch is the micro-batch; activation checkpointing as the row's stated peak
    memory implies; several GPUs as the row (or its stack's default) parallelizes them."""
    runtime = runtime_of(row)
    method = training_method(row)
    full = method == "full"
    other = OTHER_PEFT_METHODS.search(f"{row.quant} {row.workload.get('method', '')}".lower())
    if other and not full:
        raise NotModeled(
            f"{other.group(1)} is not LoRA: the engine models LoRA's two low-rank matrices "
            "beside a frozen weight (and full fine-tuning); this method's update costs "
            "differently"
        )
    if "gpu" not in row.hardware:
        raise NotModeled(
            "training on a unified-memory system (Apple silicon under MLX) is not in the "
            "training engine, whose devices are discrete GPUs with their own memory"
        )
    gpu, count = _gpus(row)
    if count > GPUS_PER_BOARD and not str(row.hardware.get("interconnect") or "").strip():
        raise NotModeled(
            f"{count} GPUs span several machines (one board holds at most {GPUS_PER_BOARD}), "
            "and the row does not state the network between them, which carries the "
            "gradients' and the sharded weights' traffic"
        )
    w = row.workload
    tensor_parallel = tensor_parallel_of(row)
    stages, chunks = pipeline_stages_of(row)
    parallelism = parallelism_of(row, runtime, count, full)
    rank = w.get("lora_rank")
    if not isinstance(rank, int) or isinstance(rank, bool) or rank < 1:
        rank = TORCHTUNE_LORA_RANK.get(method, DEFAULT_LORA_RANK)
    batch = w.get("batch_size", w.get("batch", 1))
    seq_len = w.get("seq_len")
    if not isinstance(seq_len, int) or isinstance(seq_len, bool) or seq_len < 1:
        raise NotModeled(
            "the row states no sequence length: the tokens of one step, and the attention and "
            "activation memory they take, depend on it"
        )
    model = load_model(model_slug(row))
    reason = untrainable_reason(model)
    if reason is not None:
        raise NotModeled(reason)
    workload = TrainWorkload(
        model=model,
        quant=quant_format(_training_format(row, method)),
        lora=LoraConfig(rank=rank, targets=lora_targets_of(row, runtime)),
        seq_len=seq_len,
        max_micro_batch=int(batch),
        mode=MODE_REFINED,
        parallelism=parallelism,
        full_finetune=full,
        optimizer=optimizer_of(row, runtime, full, count),
        eager_traffic=eager_traffic_of(row, runtime, full),
        tensor_parallel=tensor_parallel,
        pipeline_parallel=stages,
        virtual_stages=chunks,
        micro_batches=None
        if parallelism == PIPELINE
        else micro_batches_of(row, int(batch), max(count // (tensor_parallel * stages), 1), stages),
    )
    offload = offload_of(row)
    if offload != NO_OFFLOAD:
        workload = replace(workload, offload=offload)
    hardware = Hardware(
        gpu=gpu,
        gpu_count=count,
        cpu=_offload_cpu(row) if offload != NO_OFFLOAD else None,
        ram_gib=512.0,
        pinned_gib=480.0,
        interconnect_gbps=_interconnect_gbps(row),
    )
    workload = replace(workload, activation_checkpointing=checkpointing_of(row, workload, hardware))
    workload = _sharded_if_replicas_cannot_hold(row, workload, hardware)
    request = SimulationRequest(workload=workload, hardware=hardware)
    figure = step_figure(row, count, workload.parallelism) if is_step_figure(row) else None
    return TrainSetup(request=request, runtime=runtime, figure=figure, per_gpu=figure_per_gpu(row))


def _sharded_if_replicas_cannot_hold(
    row: MeasurementRow, workload: TrainWorkload, hardware: Hardware
) -> TrainWorkload:
    """A full fine-tune on several GPUs whose row states no strategy runs DDP, the launchers'
    default (parallelism_of), unless a whole replica of its weights, gradients and optimizer
    state cannot fit one GPU: the run was measured, so it sharded them, and ZeRO-3 (FSDP's
    layout) is the one data-parallel strategy that holds no whole replica. LLaMA-Factory's
    full-parameter examples launch it so (examples/train_full/*.yaml:
    `deepspeed: examples/deepspeed/ds_z3_config.json`)."""
    if (
        workload.parallelism != DDP
        or not workload.full_finetune
        or hardware.gpu_count < 2
        or stated_parallelism(row) is not None
    ):
        return workload
    if data_parallel_need_gib(workload, hardware) <= hardware.require_gpu().vram_gib:
        return workload
    return replace(workload, parallelism=FSDP)


# Trainers whose logged tokens/s is each GPU's whatever the unit says: torchtitan's
# `tps = ntokens_since_last_log / (time_delta * parallel_dims.non_data_parallel_size)`, "tokens
# per second per device" (torchtitan/components/metrics.py).
PER_DEVICE_LOGGERS = re.compile(r"\btorchtitan\b")


def figure_per_gpu(row: MeasurementRow) -> bool:
    """Whether the row's tokens/s is each GPU's: the unit says so, or its trainer logs so."""
    return per_gpu(row.unit) or bool(PER_DEVICE_LOGGERS.search(row.engine.lower()))


def row_setup(row: MeasurementRow) -> Setup:
    """The engine request for `row`; `NotModeled` with the reason when there is none."""
    reason = _unmodeled_reason(row)
    if reason is not None:
        raise NotModeled(reason)
    try:
        if row.workload.get("phase") == "train":
            return train_setup(row)
        return infer_setup(row)
    except (KeyError, ValueError, TypeError, AttributeError, ArithmeticError) as error:
        # a user's row with a field of an unexpected type ("gpu_count": "2", a list of GPUs)
        raise NotModeled(f"the row's setup cannot be read: {error}") from error
