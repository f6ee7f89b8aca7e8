"""The engine's version (part of every stored result's key) and the package holding its data."""

# 1.1: refined mode's LoRA-aware backward; .1: decode memory + compute; .2: Metal Marlin
# derived from seed 001's kernel table; .3: fitted routing pool fraction in batched MoE decode.
# 1.2: one device table and units (refined mode converts GiB over GB/s; NVFP4 is 4.5 bits).
# 1.3: routed experts' prefill GEMMs below the dense efficiency with few rows per expert (m½).
# 1.4: Gated DeltaNet linear-attention layers (Qwen3-Next, Qwen3.5/3.6): a fixed recurrent
# state per sequence instead of a KV cache, the delta rule's FLOPs, gated attention's q_proj.
# 1.5: Gemma 4's full-attention layers of their own shape; SGLang's offline batching; a machine
# serves with its maker's llama.cpp backend unless the request names a runtime (AMD: ROCm).
# 1.6: a training stack's eager elementwise traffic (transformers + PEFT's FP32 adapters,
# measured on an H200); fine-tuning rows' stated checkpointing and adapter targets.
# 1.7: the LM head and the unfused loss (compute, traffic, memory); what an eager transformers
# layer keeps without checkpointing; training figures read from times per step.
# 1.8: training attention scores the pairs a causal mask keeps (refined mode).
# 1.9: FP8 training (the linear GEMMs' step time at the FP8 peak); tensor-parallel training.
# 1.10: training computes at what a GPU's large matmuls sustain, measured (sustained.py), not
# at the datasheet peak; ZeRO-1 and ZeRO-2 data parallelism (sharded optimizer state, gradients).
# 1.11: measured sustained matmul rates for the H20, A800 SXM, RTX 5080 and 5070 Ti; the GTX 1650
# SUPER and Graviton3 records; serving figures per user (tok/s/user) read as the run's over its
# requests; GLM-Z1-32B-0414 read as GLM-4-32B-0414.
# .1: serving's CPU holds what the host's RAM leaves a process (seed 000's pinned share), as
# training's streaming does; the Ryzen 5 3500 record.
# 1.12: a GPU's weight reads sustain at most its SMs (compute units) × the runtime's fitted
# per-unit streaming rate (Little's law; serve/hardware.streamed_bandwidth_efficiency).
# 1.13: a GPU runtime's bandwidth efficiency is a share of what the memory sustains in a
# streaming benchmark, measured per device (sustained.py), not of the datasheet peak.
# .1: measured streaming bandwidth of the H100 SXM, A100 80GB SXM, H200 SXM, A40, MI300X,
# V100 SXM2 16GB and B200.
# 1.14: Llama 4's chunked attention and interleaved MoE layers; Gemma 2's alternating sliding
# layers; shipped configs for Qwen3.5 9B/4B/2B/0.8B, Phi-4, Gemma 2 9B/27B, Gemma 3 4B/12B,
# Qwen2.5 0.5B/1.5B, Qwen3-Coder-480B, LLaMA 30B and Qwen-14B.
# .1: llama.cpp CUDA builds dated before 2024 are not modeled (their kernels predate MMQ,
# FlashAttention and CUDA graphs); llama.cpp's SYCL backend a family of its own (Intel GPUs'
# default; Vulkan's constants do not describe them); configs for DeepSeek-R1-Distill-Qwen 7B
# and 1.5B, Devstral 2 123B and SmolLM3 3B.
# 1.15: DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): the indexer's keys in the cache and
# its scores over every cached token; vLLM, SGLang and TensorRT-LLM read the latent of the
# top-k tokens only, llama.cpp every token (a request may say which); GLM-5.2's layers that
# share an indexer; DeepSeek V4's compressed attention (window, CSA and HCA layers,
# hyper-connections); a GGUF file type read at its stated file size; shipped configs for
# GLM-5, GLM-5.2, DeepSeek-V3.2 and DeepSeek-V4 Flash and Pro.
# 1.16: several machines splitting the layers over a network (llama.cpp's RPC backend,
# `hardware.machines`, `network_gbit_per_s`): memory adds up, each boundary costs the hidden
# state's bits over the network and a fitted fixed cost per crossing.
# 1.17: a routed-expert layer's extra kernels (router, top-k, the experts' gather and combine)
# as a fitted per-runtime constant in per-layer costs (`moe_layer_extra`).

# 1.18: training state offloaded to host RAM (`workload.offload`: the optimizer's, ZeRO-Offload,
# or the weights' too, ZeRO-3/FSDP CPU offload); the KV cache in host RAM with its attention on
# the CPU (`workload.kv_cache_on_cpu`, llama.cpp -nkvo); a CPU's per-layer cost in proportion
# to its threads (ggml's barrier); the constants refitted on the corpus rows the new device,
# model and quantization records make readable.
# 1.19: Megatron pipeline stages in data-parallel training (`workload.pipeline_parallel`,
# `virtual_stages`: 1F1B's fill and drain, the stage hand-offs, the first stage's micro-batches
# in flight); the embedding and LM head held, and trained under full fine-tuning; the
# constants refitted with the Megatron rows this makes readable; whole layers in host RAM
# (`workload.gpu_layers`, llama.cpp's partial -ngl); a Mac's GPU holds the working set Metal
# reports on current macOS (measured from 24 to 512 GB), not 75 % of its memory.
# 1.20: a whole system (unified memory) is the machine alone: the parser refuses it beside a
# PC's GPU or CPU; vLLM and SGLang runs serve at once what their batch cap and KV pool admit of
# the requests their clients keep in flight; the constants refitted with the rows it makes
# readable, and without a stalled serving run (peak output over 10x its mean).
# 1.21: the routed experts' prefill GEMM underfill (m½) is each runtime's on each device class,
# fitted on its own MoE prompts (a pooled value for runtimes without them): Apple's kernels
# lose far less to few rows per expert than CUDA's tensor-core tiles; ik_llama.cpp caches and
# attends the whole context in a model's sliding-window layers (no window-sized cache).
# 1.22: the constants fitted by least absolute log errors (the median's loss), not squared ones.
# 1.23: serving runs (serve/serving_run.py): requests kept in flight or sent at a rate, by
# Little's law, in the engine and the API; the constants refitted with the rows this makes
# readable (request-rate runs, DeepSeek checkpoints served as released in FP8, and
# fms-acceleration's fine-tuning rows at the 4,096-token sequences their figures prove).

# 1.24: the constants fitted by the pseudo-Huber loss (smooth within 5 %), a key's FLOPS
# efficiency and m½ searched together in the first round, rounds until one changes nothing
# (at most twelve).

# 1.25: a prompt's dense GEMMs in micro-batches shorter than 512 rows pay the GEMM tile's
# underfill at their runtime's m½ (serve/prefill.dense_gemm_underfill).

# 1.26: a tensor-parallel all-reduce costs its bytes alone again: the fixed latency 1.25 fitted
# bought nothing measurable, and stays in the runtime's per-layer overhead.

# 1.27: RDNA 4 Radeons at their WMMA peak, and llama.cpp's ROCm prompts on the vector units
# (hardware.FP16_VECTOR, the record's vector_fp16_tflops), its Vulkan prompts on the matrix
# units.

ENGINE_VERSION = "1.27.0"
# data/ (devices, models, efficiency constants, the measurement corpus) lives here.
ENGINE_PACKAGE = "simulator.engine"
