"""Parse and validate a Hugging Face `config.json` into a frozen `ModelShape`.

Handles dense (Llama), MoE with routed experts only (Mixtral, Qwen3-MoE) and MoE with
shared experts and dense first layers (GLM-4.x, DeepSeek-V3), with GQA or MLA attention.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from simulator.engine.errors import EngineInputError

# Keys that name the routed-expert count in the families we read (GLM/DeepSeek, Mixtral, Qwen).
ROUTED_EXPERT_KEYS = ("n_routed_experts", "num_local_experts", "num_experts")
# Bounds on config.json integers: far above every published model (vocabularies of ~256 k,
# FFN widths of ~65 k, 126 layers, 1 MTP layer), low enough that no size overflows a float.
MAX_CONFIG_INT = 1 << 24
MAX_CONFIG_INTS = {"num_hidden_layers": 1024, "num_nextn_predict_layers": 16}
SHOWN_CHARS = 40
ACTIVATION_BYTES = 2  # BF16/FP16 activations, as the convolution state keeps them
# Bytes per element of the delta-rule state by config.json `mamba_ssm_dtype`.
STATE_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
LINEAR_LAYER_TYPE = "linear_attention"
# Model types whose attention is gated without saying so in config.json: transformers'
# Qwen3NextAttention builds q_proj num_heads × head_dim × 2 wide (query and gate).
GATED_ATTENTION_MODEL_TYPES = frozenset({"qwen3_next"})


# DeepSeek V4's attention (model_type deepseek_v4; DeepSeek-V4 technical report, "Hybrid
# attention"): every layer attends to a sliding window of its last `sliding_window` tokens,
# one KV head whose keys double as values; a compressed-sparse (CSA) layer also keeps one
# compressed entry per `CSA_RATIO` tokens, of which an indexer picks `index_topk`, and a
# heavily compressed (HCA) layer one per `HCA_RATIO` tokens, all of them attended.
CSA = "csa"
DEEPSEEK_V4_MODEL_TYPE = "deepseek_v4"
CSA_RATIO = 4
HCA_RATIO = 128


@dataclass(frozen=True, slots=True, kw_only=True)
class AttentionShape:
    """Attention block of one layer. `kind` is "gqa" (incl. MHA) or "mla" (DeepSeek latent)."""

    kind: str
    num_heads: int
    num_kv_heads: int
    head_dim: int
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    # Gated attention (Qwen3-Next, Qwen3.5: config.json `attn_output_gate`): q_proj also
    # emits a sigmoid gate as wide as the heads' output, so it is twice as wide.
    output_gate: bool = False
    # Keys double as values (Gemma 4's full-attention layers, config.json `attention_k_eq_v`):
    # there is no v_proj; the cache still keeps the values, normalised apart from the keys.
    shared_kv_projection: bool = False
    # DeepSeek sparse attention (DeepSeek-V3.2, GLM-5: config.json `index_n_heads`,
    # `index_head_dim`, `index_topk`; DeepSeek-V3.2-Exp tech report §2.1): a lightning indexer
    # of `index_heads` small heads scores every cached token against the query through one
    # cached `index_head_dim` key per token, and the MLA attention then reads only the
    # `index_topk` best-scoring tokens. 0: no indexer, attention over every cached token.
    index_heads: int = 0
    index_head_dim: int = 0
    index_topk: int = 0
    # DeepSeek V4's grouped low-rank output projection (config.json `o_groups`, `o_lora_rank`):
    # the heads' outputs in `o_groups` groups, each projected to `o_lora_rank`, then to h.
    o_groups: int = 0
    o_lora_rank: int = 0

    @property
    def cache_width(self) -> int:
        """Elements one token adds to this layer's cache (GQA: keys and values of every KV
        head; MLA: the latent and the shared rope key, and the indexer's key where it has
        one; DeepSeek V4's compressed attention: its one KV head, keys doubling as values)."""
        if self.kind == "mla":
            return self.kv_lora_rank + self.qk_rope_head_dim + self.index_head_dim
        if self.kind == CSA:
            return self.num_kv_heads * self.head_dim
        return 2 * self.num_kv_heads * self.head_dim

    @property
    def score_width(self) -> int:
        """Query heads × head width: what QKᵀ and score·V cost per query–key pair scales by."""
        return self.num_heads * self.head_dim


@dataclass(frozen=True, slots=True, kw_only=True)
class LinearAttentionShape:
    """A Gated DeltaNet layer (Qwen3-Next, Qwen3.5/3.6: `layer_types` "linear_attention";
    Yang, Kautz, Hatamizadeh, "Gated Delta Networks", ICLR 2025). Instead of a KV cache each
    sequence keeps a fixed state: per value head a key_head_dim × value_head_dim matrix (in
    `state_bytes_per_element`, config.json `mamba_ssm_dtype`, float32 by default) and the
    last `conv_kernel` − 1 inputs of the short causal convolution over q, k and v."""

    num_key_heads: int
    num_value_heads: int
    key_head_dim: int
    value_head_dim: int
    conv_kernel: int
    state_bytes_per_element: int = 4

    @property
    def conv_channels(self) -> int:
        """Channels of the causal convolution: q and k (key width each) and v."""
        return (
            2 * self.num_key_heads * self.key_head_dim + self.num_value_heads * self.value_head_dim
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelShape:
    """The whole model as its config.json describes it (embeddings included for totals)."""

    slug: str
    display_name: str
    hidden_size: int
    num_layers: int
    attention: AttentionShape
    dense_intermediate_size: int
    first_dense_layers: int
    num_experts: int
    experts_per_token: int
    expert_intermediate_size: int
    shared_expert_count: int
    shared_expert_intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool
    mtp_layers: int = 0
    card_params_b: float | None = None
    # Sliding-window attention: `sliding_layers` of the layers attend to the last
    # `sliding_window` positions only (and keep only those in the KV cache); the rest attend
    # to the whole context.
    sliding_window: int = 0
    sliding_layers: int = 0
    # Chunked attention (Llama 4's RoPE layers, config.json `attention_chunk_size` and
    # `no_rope_layers`): `chunked_layers` of the layers attend only to the positions of the
    # fixed `attention_chunk` the query falls in (positions 1…C, C+1…2C, …); the rest attend
    # to the whole context.
    attention_chunk: int = 0
    chunked_layers: int = 0
    # Gated DeltaNet layers: `linear_layers` of the layers attend through a recurrent state
    # (`linear_attention`) and keep no KV cache; the rest are full or sliding attention.
    linear_layers: int = 0
    linear_attention: LinearAttentionShape | None = None
    # Full-attention layers with an attention of their own (Gemma 4: `global_head_dim`,
    # `num_global_key_value_heads`, `attention_k_eq_v`); None: they have `attention` too.
    full_attention: AttentionShape | None = None
    # Layers that reuse the sparse-attention indexer's choice of an earlier layer and have no
    # indexer of their own (GLM-5.2: config.json `indexer_types` "shared"; 0: every layer of
    # an indexed model runs one).
    shared_indexer_layers: int = 0
    # DeepSeek V4: layers whose compressor keeps one entry per CSA_RATIO tokens (with an
    # indexer over them) and per HCA_RATIO tokens; their sliding window is `sliding_window`
    # in `sliding_layers` (all layers). Hyper-connections keep `hc_mult` copies of the
    # residual stream (config.json `hc_mult`; 0: a plain residual).
    csa_layers: int = 0
    hca_layers: int = 0
    hc_mult: int = 0
    # The longest context the model was configured for (config.json max_position_embeddings);
    # None when the config does not say.
    trained_context: int | None = None
    # A shipped model (model/registry.load_model), whose seed-measured layer sizes apply; an
    # inline config.json is sized by bit arithmetic whatever slug it is given.
    shipped: bool = False

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def measured_sizes_slug(self) -> str:
        """The slug under which measured layer sizes are looked up ("" for none)."""
        return self.slug if self.shipped else ""

    @property
    def indexer_layers(self) -> int:
        """Layers that run (and cache the keys of) their own sparse-attention indexer: a
        DeepSeek sparse-attention model's all but those sharing one, DeepSeek V4's CSA
        layers."""
        if not self.attention.index_topk:
            return 0
        if self.attention.kind == CSA:
            return self.csa_layers
        return self.num_layers - self.shared_indexer_layers

    def indexer_positions(self, context: float) -> float:
        """Σ over layers of the cached entries an indexer scores for one query: every cached
        token in a DeepSeek sparse-attention layer, every compressed entry in a CSA layer."""
        if self.attention.kind == CSA:
            return self.csa_layers * float(context) / CSA_RATIO
        return self.indexer_layers * float(context)

    def indexer_pairs(self, depth: int, tokens: int) -> float:
        """Σ over layers of the query–entry pairs an indexer scores in a causal prompt of
        `tokens` after `depth` cached ones (P·D + P(P+1)/2 a layer, a CSA layer's over
        entries CSA_RATIO tokens each)."""
        causal = tokens * depth + tokens * (tokens + 1) / 2
        if self.attention.kind == CSA:
            return self.csa_layers * causal / CSA_RATIO
        return self.indexer_layers * causal

    @property
    def indexer_key_share(self) -> float:
        """The share of a token's cache bytes that are indexer keys: d_I in each indexer
        layer, of the latent and rope key in every layer and those keys."""
        att = self.attention
        keys = self.indexer_layers * att.index_head_dim
        return keys / (self.num_layers * (att.cache_width - att.index_head_dim) + keys)

    @property
    def full_layers(self) -> int:
        """Layers that attend to the whole context (neither sliding, chunked nor linear)."""
        return self.num_layers - self.sliding_layers - self.chunked_layers - self.linear_layers

    @property
    def full_cache_ratio(self) -> float:
        """A full-attention layer's cache per token over `attention`'s (1 unless the full
        layers have their own attention: Gemma 4 31B's 2 × 4 × 512 against 2 × 16 × 256)."""
        if self.full_attention is None:
            return 1.0
        return self.full_attention.cache_width / self.attention.cache_width

    @property
    def full_score_ratio(self) -> float:
        """A full-attention layer's attention FLOPs per query–key pair over `attention`'s."""
        if self.full_attention is None:
            return 1.0
        return self.full_attention.score_width / self.attention.score_width

    def _compressed_positions(self, context: float, *, sparse: bool, keys: bool) -> float:
        """DeepSeek V4's compressed entries at `context` tokens, summed over its CSA and HCA
        layers, in units of a window position (one KV head wide): each CSA layer's entries,
        at most `index_topk` of them where sparse kernels run the indexer's choice (`sparse`),
        and with `keys` its indexer's key of every entry; each HCA layer's entries, all of
        them. Kept: keys, not sparse; read: keys, sparse; attended: no keys, sparse."""
        if self.attention.kind != CSA:
            return 0.0
        att = self.attention
        csa_entries = float(context) / CSA_RATIO
        csa = min(csa_entries, float(att.index_topk)) if sparse else csa_entries
        if keys:
            csa += csa_entries * att.index_head_dim / att.cache_width
        return self.csa_layers * csa + self.hca_layers * float(context) / HCA_RATIO

    @property
    def compressed_growth(self) -> float:
        """DeepSeek V4's compressed entries one more token of context keeps, summed over its
        layers, in window positions (0 for other models)."""
        return self._compressed_positions(1.0, sparse=False, keys=True)

    def attended_positions(self, context: float) -> float:
        """Mean over layers of the cached positions one sequence keeps (and one query reads)
        at `context` tokens, in units of an `attention` layer's cache width: all of them in a
        full-attention layer (× `full_cache_ratio`), at most `sliding_window` in a sliding
        one and at most `attention_chunk` in a chunked one (the chunk's cache is sized and
        read to its length: an upper bound that is exact up to the first chunk boundary),
        none in a linear-attention layer (its state is counted apart:
        `recurrent_state_bytes`)."""
        compressed = self._compressed_positions(context, sparse=False, keys=True)
        return self._mean_positions(context, self.full_cache_ratio) + compressed / self.num_layers

    def score_positions(self, context: float) -> float:
        """`attended_positions` weighted by attention FLOPs per position instead of cache
        bytes (× `full_score_ratio` in a full-attention layer)."""
        return self._mean_positions(context, self.full_score_ratio)

    def read_positions(self, context: float, *, sparse: bool) -> float:
        """What one decoded token reads of its sequence's cache, in `attended_positions`'
        units. With a DeepSeek sparse-attention indexer run by sparse kernels (`sparse`), the
        attention reads the latent of at most `index_topk` tokens and the indexer the keys of
        all of them; otherwise (no indexer, or a runtime that masks a dense attention) every
        cached position whole."""
        if self.attention.kind == CSA:
            compressed = self._compressed_positions(context, sparse=sparse, keys=True)
            return self._mean_positions(context, 1.0) + compressed / self.num_layers
        if not (sparse and self.attention.index_topk):
            return self.attended_positions(context)
        keys = self.indexer_key_share
        topk = min(float(context), float(self.attention.index_topk))
        return (1 - keys) * self.attended_positions(topk) + keys * self.attended_positions(context)

    def attention_positions(self, context: float, *, sparse: bool) -> float:
        """`score_positions` of the attention itself: at most `index_topk` positions where
        sparse kernels run the indexer's choice (`read_positions`); DeepSeek V4's window and
        the compressed entries it attends to."""
        if self.attention.kind == CSA:
            compressed = self._compressed_positions(context, sparse=sparse, keys=False)
            return self._mean_positions(context, 1.0) + compressed / self.num_layers
        if sparse and self.attention.index_topk:
            context = min(float(context), float(self.attention.index_topk))
        return self.score_positions(context)

    @property
    def bounded_layers(self) -> tuple[tuple[int, int], ...]:
        """(positions kept at most, layers) of the layers whose cache stops growing: sliding
        layers at `sliding_window`, chunked ones at `attention_chunk`."""
        groups = (
            (self.sliding_window, self.sliding_layers),
            (self.attention_chunk, self.chunked_layers),
        )
        return tuple((bound, count) for bound, count in groups if count)

    def _mean_positions(self, context: float, full_weight: float) -> float:
        full = self.full_layers * full_weight * float(context)
        bounded = sum(count * min(float(context), float(b)) for b, count in self.bounded_layers)
        return (full + bounded) / self.num_layers

    def attended_pairs(self, depth: int, tokens: int) -> float:
        """Mean over layers of the query–key pairs of `tokens` causal queries appended after
        `depth` cached tokens: Σ over positions p = depth+1 … depth+tokens of the keys p sees
        (p, at most `sliding_window` in a sliding layer, p's place in its chunk in a chunked
        layer, none in a linear one), in units of an `attention` layer's FLOPs per pair (a
        full layer's × `full_score_ratio`)."""
        full_pairs = self.full_score_ratio * (tokens * depth + tokens * (tokens + 1) / 2)
        sliding_pairs = 0.0
        if self.sliding_layers:
            sliding_pairs = _window_pairs(depth, tokens, self.sliding_window)
        chunked_pairs = 0.0
        if self.chunked_layers:
            chunk = self.attention_chunk
            chunked_pairs = _chunked_pairs(depth + tokens, chunk) - _chunked_pairs(depth, chunk)
        if self.attention.kind == CSA:
            return self._window_and_compressed_pairs(depth, tokens, sparse=False)
        return (
            self.full_layers * full_pairs
            + self.sliding_layers * sliding_pairs
            + self.chunked_layers * chunked_pairs
        ) / self.num_layers

    def attention_pairs(self, depth: int, tokens: int, *, sparse: bool) -> float:
        """`attended_pairs` of the attention itself: where sparse kernels run a DeepSeek
        sparse-attention indexer's choice, each query reads at most `index_topk` keys, Σ over
        p of min(p, k) (every layer of such a model attends to the whole context)."""
        if self.attention.kind == CSA:
            return self._window_and_compressed_pairs(depth, tokens, sparse=sparse)
        topk = self.attention.index_topk
        if not (sparse and topk):
            return self.attended_pairs(depth, tokens)
        pairs = self.full_score_ratio * _window_pairs(depth, tokens, topk)
        return self.full_layers * pairs / self.num_layers

    def _window_and_compressed_pairs(self, depth: int, tokens: int, *, sparse: bool) -> float:
        """DeepSeek V4's prompt pairs, mean over layers: every layer's window, a CSA layer's
        compressed entries (one per CSA_RATIO positions, at most `index_topk` per query
        where sparse kernels run the indexer's choice: Σ_p min(p/r, k) = Σ_p min(p, r·k)/r)
        and an HCA layer's (one per HCA_RATIO positions)."""
        causal = tokens * depth + tokens * (tokens + 1) / 2
        window = self.sliding_layers * _window_pairs(depth, tokens, self.sliding_window)
        if sparse:
            reach = CSA_RATIO * self.attention.index_topk
            csa = _window_pairs(depth, tokens, reach) / CSA_RATIO
        else:
            csa = causal / CSA_RATIO
        compressed = self.csa_layers * csa + self.hca_layers * causal / HCA_RATIO
        return (window + compressed) / self.num_layers

    @property
    def recurrent_state_bytes(self) -> float:
        """Bytes one sequence keeps in its linear-attention layers whatever the context: the
        delta-rule state (value heads × key dim × value dim, in the state type) and the
        convolution's last kernel − 1 inputs (16-bit, like the activations)."""
        lin = self.linear_attention
        if lin is None or not self.linear_layers:
            return 0.0
        state = lin.num_value_heads * lin.key_head_dim * lin.value_head_dim
        conv = lin.conv_channels * (lin.conv_kernel - 1)
        per_layer = state * lin.state_bytes_per_element + conv * ACTIVATION_BYTES
        return float(self.linear_layers * per_layer)

    @property
    def moe_layers(self) -> int:
        return self.num_layers - self.first_dense_layers if self.is_moe else 0


def _window_pairs(depth: int, tokens: int, window: int) -> float:
    """Σ over positions p = depth+1 … depth+tokens of min(p, window): the keys each causal
    query sees when it sees at most `window` of them."""
    below = max(min(depth + tokens, window) - depth, 0)  # positions p ≤ window
    return below * depth + below * (below + 1) / 2 + (tokens - below) * window


def _chunked_pairs(positions: int, chunk: int) -> float:
    """Σ over p = 1 … `positions` of the keys p sees when attention stays within fixed chunks
    of `chunk` positions: each whole chunk gives 1 + 2 + … + C, the part chunk 1 + … + r."""
    whole, rest = divmod(positions, chunk)
    return whole * chunk * (chunk + 1) / 2 + rest * (rest + 1) / 2


# model_type of the first Qwen generation (Qwen-1.8B … 72B, remote code QWenLMHeadModel).
QWEN1_MODEL_TYPE = "qwen"


def _int(config: Mapping[str, object], key: str, *, path: str, minimum: int = 1) -> int:
    if key not in config or config[key] is None:
        raise EngineInputError(field=f"{path}.{key}", message="is required in config.json")
    value = config[key]
    maximum = MAX_CONFIG_INTS.get(key, MAX_CONFIG_INT)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        shown = repr(value) if len(repr(value)) <= SHOWN_CHARS else f"{repr(value)[:SHOWN_CHARS]}…"
        raise EngineInputError(
            field=f"{path}.{key}",
            message=f"must be an integer from {minimum} to {maximum}, got {shown}",
        )
    return value


def _opt_int(
    config: Mapping[str, object], key: str, default: int, *, path: str, minimum: int = 0
) -> int:
    if config.get(key) is None:
        return default
    return _int(config, key, path=path, minimum=minimum)


def _compressed_attention(config: Mapping[str, object], *, path: str) -> AttentionShape:
    """DeepSeek V4's attention (transformers' DeepseekV4Attention): q through a low-rank
    latent to `num_attention_heads` heads `head_dim` wide, one KV head (`wkv`), the grouped
    low-rank output projection, and the CSA layers' indexer."""
    index_heads, index_head_dim, index_topk = _indexer(config, path=path)
    return AttentionShape(
        kind=CSA,
        num_heads=_int(config, "num_attention_heads", path=path),
        num_kv_heads=_opt_int(config, "num_key_value_heads", 1, path=path, minimum=1),
        head_dim=_int(config, "head_dim", path=path),
        q_lora_rank=_int(config, "q_lora_rank", path=path),
        qk_rope_head_dim=_int(config, "qk_rope_head_dim", path=path),
        index_heads=index_heads,
        index_head_dim=index_head_dim,
        index_topk=index_topk,
        o_groups=_int(config, "o_groups", path=path),
        o_lora_rank=_int(config, "o_lora_rank", path=path),
    )


def _compressed_layers(
    config: Mapping[str, object], num_layers: int, *, path: str
) -> tuple[int, int]:
    """(CSA layers, HCA layers) of DeepSeek V4's `compress_ratios` (one per layer, the MTP
    layers' after them): ratio CSA_RATIO, HCA_RATIO, or 0 for a layer with its window only."""
    ratios = config.get("compress_ratios")
    if ratios is None:
        return 0, 0
    if config.get("model_type") != DEEPSEEK_V4_MODEL_TYPE:
        raise EngineInputError(
            field=f"{path}.compress_ratios",
            message="describes compressed attention layers, which the engine models for "
            f"DeepSeek V4 (model_type {DEEPSEEK_V4_MODEL_TYPE}) only",
        )
    allowed = (0, CSA_RATIO, HCA_RATIO)
    if (
        not isinstance(ratios, list)
        or len(ratios) < num_layers
        or any(ratio not in allowed for ratio in ratios[:num_layers])
    ):
        raise EngineInputError(
            field=f"{path}.compress_ratios",
            message=f"must give each of the {num_layers} layers one of {list(allowed)}",
        )
    main = ratios[:num_layers]
    return main.count(CSA_RATIO), main.count(HCA_RATIO)


def _attention(config: Mapping[str, object], hidden: int, *, path: str) -> AttentionShape:
    if config.get("model_type") == DEEPSEEK_V4_MODEL_TYPE:
        return _compressed_attention(config, path=path)
    heads = _int(config, "num_attention_heads", path=path)
    kv_heads = _opt_int(config, "num_key_value_heads", heads, path=path, minimum=1)
    if config.get("kv_lora_rank") is not None:
        nope = _int(config, "qk_nope_head_dim", path=path)
        rope = _int(config, "qk_rope_head_dim", path=path)
        index_heads, index_head_dim, index_topk = _indexer(config, path=path)
        return AttentionShape(
            kind="mla",
            num_heads=heads,
            num_kv_heads=kv_heads,
            head_dim=nope + rope,
            q_lora_rank=_opt_int(config, "q_lora_rank", 0, path=path),
            kv_lora_rank=_int(config, "kv_lora_rank", path=path),
            qk_nope_head_dim=nope,
            qk_rope_head_dim=rope,
            v_head_dim=_int(config, "v_head_dim", path=path),
            index_heads=index_heads,
            index_head_dim=index_head_dim,
            index_topk=index_topk,
        )
    if config.get("index_topk"):
        raise EngineInputError(
            field=f"{path}.index_topk",
            message="a sparse-attention indexer is modeled over MLA attention (kv_lora_rank)",
        )
    if hidden % heads and config.get("head_dim") is None:
        raise EngineInputError(
            field=f"{path}.head_dim", message="is required when hidden_size % heads != 0"
        )
    head_dim = _opt_int(config, "head_dim", hidden // heads, path=path, minimum=1)
    return AttentionShape(
        kind="gqa",
        num_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        output_gate=bool(config.get("attn_output_gate"))
        or config.get("model_type") in GATED_ATTENTION_MODEL_TYPES,
    )


def _indexer(config: Mapping[str, object], *, path: str) -> tuple[int, int, int]:
    """A DeepSeek sparse-attention indexer's heads, head width and top-k (`index_n_heads`,
    `index_head_dim`, `index_topk`), all three or none (zeros)."""
    if not config.get("index_topk"):
        return 0, 0, 0
    return (
        _int(config, "index_n_heads", path=path),
        _int(config, "index_head_dim", path=path),
        _int(config, "index_topk", path=path),
    )


INDEXER_TYPES = ("full", "shared")


def _shared_indexer_layers(config: Mapping[str, object], num_layers: int, *, path: str) -> int:
    """How many layers reuse an earlier layer's indexer choice: those `indexer_types` marks
    "shared" (GLM-5.2); a config that says layers share one (`index_topk_freq`) without
    listing which is refused."""
    types = config.get("indexer_types")
    if types is None:
        if config.get("index_topk_freq") not in (None, 1):
            raise EngineInputError(
                field=f"{path}.indexer_types",
                message="is required when index_topk_freq makes layers share an indexer",
            )
        return 0
    if (
        not isinstance(types, list)
        or len(types) != num_layers
        or any(kind not in INDEXER_TYPES for kind in types)
    ):
        raise EngineInputError(
            field=f"{path}.indexer_types",
            message=f"must list {num_layers} of {list(INDEXER_TYPES)} (one per layer)",
        )
    if types[0] != "full":
        raise EngineInputError(
            field=f"{path}.indexer_types", message="the first layer must run its own indexer"
        )
    return sum(1 for kind in types if kind == "shared")


def _full_attention(
    config: Mapping[str, object], attention: AttentionShape, *, path: str
) -> AttentionShape | None:
    """The full-attention layers' own attention where config.json gives one (Gemma 4,
    transformers' Gemma4TextAttention): `global_head_dim` wide heads, and with
    `attention_k_eq_v` keys that double as values over `num_global_key_value_heads` KV
    heads (`num_key_value_heads` without it)."""
    if config.get("global_head_dim") is None:
        return None
    shared = bool(config.get("attention_k_eq_v"))
    kv_key = "num_global_key_value_heads" if shared else "num_key_value_heads"
    return AttentionShape(
        kind="gqa",
        num_heads=attention.num_heads,
        num_kv_heads=_opt_int(config, kv_key, attention.num_kv_heads, path=path, minimum=1),
        head_dim=_int(config, "global_head_dim", path=path),
        shared_kv_projection=shared,
    )


def _routed_experts(config: Mapping[str, object], *, path: str) -> int:
    for key in ROUTED_EXPERT_KEYS:
        if config.get(key):
            return _int(config, key, path=path)
    return 0


def _dense_first_layers(config: Mapping[str, object], num_layers: int, *, path: str) -> int:
    """Dense layers of a MoE model: `first_k_dense_replace` (GLM, DeepSeek) or `mlp_only_layers`
    (Qwen). Both put the dense layers first or list them; only their count matters here."""
    first_k = _opt_int(config, "first_k_dense_replace", 0, path=path)
    only = config.get("mlp_only_layers") or []
    count = first_k + (len(only) if isinstance(only, list) else 0)
    if count >= num_layers:
        raise EngineInputError(field=f"{path}.first_k_dense_replace", message="leaves no MoE layer")
    return count


SLIDING_LAYER_TYPE = "sliding_attention"
CHUNKED_LAYER_TYPE = "chunked_attention"
# `layer_types` entries the cost rules describe: attention over the whole context, a window
# or a chunk, and Gated DeltaNet's linear attention.
ATTENTION_LAYER_TYPES = frozenset(
    {"full_attention", SLIDING_LAYER_TYPE, CHUNKED_LAYER_TYPE, LINEAR_LAYER_TYPE}
)
# Llama 4 (transformers' Llama4TextConfig, models/llama4/configuration_llama4.py): a layer
# uses RoPE, and then chunked attention, unless every `no_rope_layer_interval`-th (default 4)
# when `no_rope_layers` is not listed; MoE layers are every `interleave_moe_layer_step`-th
# (default 1) when `moe_layers` is not listed, the others dense MLPs `intermediate_size_mlp`
# wide; each MoE layer also runs a shared expert `intermediate_size` wide (Llama4TextMoe's
# shared_expert).
LLAMA4_MODEL_TYPE = "llama4_text"
GEMMA2_MODEL_TYPE = "gemma2"
LLAMA4_NO_ROPE_INTERVAL = 4
# Keys that, when set, make layers the engine has no cost rule for; refused rather than read
# as a plain transformer (read 2026-11-26 from the configs vendored at
# github.com/ai-dynamo/aiconfigurator@095f58a5 aic-core/src/aiconfigurator_core/model_configs;
# Zamba2's layers_block_type from a fixture quoting Zyphra/Zamba2-2.7B, find_string
# '"hidden_size": 6144,' id 65760752905). Granite 4.0-H's "mamba" layer_types are refused
# with the other unknown layer types below.
UNSUPPORTED_KEYS: dict[str, str] = {
    "hybrid_override_pattern": "Mamba-2 layers between the attention layers (Nemotron-H)",
    "layers_block_type": "Mamba layers between the attention layers (Zamba2)",
    "hidden_size_per_layer_input": "per-layer input embeddings (Gemma 4 E2B, E4B)",
    "num_kv_shared_layers": "layers that reuse an earlier layer's KV cache (Gemma 4 E2B, E4B)",
    "use_double_wide_mlp": "MLPs twice as wide in the KV-sharing layers (Gemma 4 E2B, E4B)",
}


def _typed_layers(
    config: Mapping[str, object], num_layers: int, kind: str, *, path: str
) -> int | None:
    """How many layers `layer_types` marks `kind`; None when the config has no such list."""
    types = config.get("layer_types")
    if types is None:
        return None
    if not isinstance(types, list) or len(types) != num_layers:
        raise EngineInputError(
            field=f"{path}.layer_types",
            message=f"must be a list of {num_layers} layer types (one per layer)",
        )
    return sum(1 for each in types if each == kind)


def _sliding_layers(config: Mapping[str, object], num_layers: int, *, path: str) -> int:
    """How many layers use the sliding window: those `layer_types` marks "sliding_attention"
    (gpt-oss, Gemma 3, Qwen3 next); every layer but each `sliding_window_pattern`-th (Gemma
    3's older configs); none when `use_sliding_window` is false (Qwen2/2.5 carry an unused
    window); every other layer from the first in Gemma 2; else all (Mistral 7B v0.1)."""
    if not config.get("sliding_window"):
        return 0
    typed = _typed_layers(config, num_layers, SLIDING_LAYER_TYPE, path=path)
    if typed is not None:
        return typed
    if config.get("use_sliding_window") is False:
        return 0
    if config.get("model_type") == GEMMA2_MODEL_TYPE:
        return (num_layers + 1) // 2  # layers 0, 2, 4, … (Gemma2Config's layer_types default)
    if config.get("sliding_window_pattern") is not None:
        pattern = _int(config, "sliding_window_pattern", path=path)
        return num_layers - num_layers // pattern
    return num_layers


def _chunked_layers(config: Mapping[str, object], num_layers: int, *, path: str) -> int:
    """How many layers attend within chunks of `attention_chunk_size`: those `layer_types`
    marks "chunked_attention", else Llama 4's RoPE layers (`no_rope_layers` 1, or all but
    every 4th when it is not listed)."""
    if not config.get("attention_chunk_size"):
        return 0
    typed = _typed_layers(config, num_layers, CHUNKED_LAYER_TYPE, path=path)
    if typed is not None:
        return typed
    rope = config.get("no_rope_layers")
    if rope:
        if not isinstance(rope, list) or len(rope) != num_layers:
            raise EngineInputError(
                field=f"{path}.no_rope_layers",
                message=f"must be a list of {num_layers} 0/1 flags (one per layer)",
            )
        return sum(1 for flag in rope if flag)
    interval = _opt_int(
        config, "no_rope_layer_interval", LLAMA4_NO_ROPE_INTERVAL, path=path, minimum=1
    )
    return num_layers - num_layers // interval


def _interleaved_dense_layers(config: Mapping[str, object], num_layers: int, *, path: str) -> int:
    """Llama 4's dense layers: those not in `moe_layers`, else all but every
    `interleave_moe_layer_step`-th."""
    listed = config.get("moe_layers")
    if listed:
        if not isinstance(listed, list) or not all(
            isinstance(i, int) and 0 <= i < num_layers for i in listed
        ):
            raise EngineInputError(
                field=f"{path}.moe_layers", message=f"must list layer indices below {num_layers}"
            )
        moe = len(set(listed))
    else:
        moe = num_layers // _opt_int(config, "interleave_moe_layer_step", 1, path=path, minimum=1)
    if moe == 0:
        raise EngineInputError(field=f"{path}.moe_layers", message="leaves no MoE layer")
    return num_layers - moe


def _linear_layers(config: Mapping[str, object], num_layers: int, *, path: str) -> int:
    """How many layers are Gated DeltaNet layers: those `layer_types` marks
    "linear_attention" (Qwen3.5/3.6), else all but every `full_attention_interval`-th
    (Qwen3-Next: layer i is full attention when (i + 1) % interval == 0)."""
    types = config.get("layer_types")
    if not config.get("linear_num_value_heads"):
        if isinstance(types, list) and LINEAR_LAYER_TYPE in types:
            raise EngineInputError(
                field=f"{path}.linear_num_value_heads",
                message="is required when layer_types has linear_attention layers",
            )
        return 0
    if isinstance(types, list):
        if len(types) != num_layers:
            raise EngineInputError(
                field=f"{path}.layer_types",
                message=f"must be a list of {num_layers} layer types (one per layer)",
            )
        return sum(1 for kind in types if kind == LINEAR_LAYER_TYPE)
    if config.get("full_attention_interval") is None:
        raise EngineInputError(
            field=f"{path}.full_attention_interval",
            message="is required with linear-attention heads when layer_types is absent",
        )
    interval = _int(config, "full_attention_interval", path=path)
    return num_layers - num_layers // interval


def _linear_attention(config: Mapping[str, object], *, path: str) -> LinearAttentionShape | None:
    if not config.get("linear_num_value_heads"):
        return None
    dtype = str(config.get("mamba_ssm_dtype") or "float32")
    if dtype not in STATE_DTYPE_BYTES:
        raise EngineInputError(
            field=f"{path}.mamba_ssm_dtype", message=f"must be one of {sorted(STATE_DTYPE_BYTES)}"
        )
    return LinearAttentionShape(
        num_key_heads=_int(config, "linear_num_key_heads", path=path),
        num_value_heads=_int(config, "linear_num_value_heads", path=path),
        key_head_dim=_int(config, "linear_key_head_dim", path=path),
        value_head_dim=_int(config, "linear_value_head_dim", path=path),
        conv_kernel=_int(config, "linear_conv_kernel_dim", path=path),
        state_bytes_per_element=STATE_DTYPE_BYTES[dtype],
    )


def _text_model(config: Mapping[str, object], path: str) -> tuple[Mapping[str, object], str]:
    """The language model of a multimodal config.json (Gemma 3, Mistral 3: `text_config`,
    with the top-level keys around it); the config itself otherwise. The vision tower is
    left out: it runs on images only, and the corpus measures text."""
    text = config.get("text_config")
    if text is None:
        return config, path
    if not isinstance(text, Mapping):
        raise EngineInputError(field=f"{path}.text_config", message="must be an object")
    return {**config, **text}, f"{path}.text_config"


# Hunyuan's MoE config.json (model_type "hunyuan", HunYuanMoEV1ForCausalLM) gives the routed
# experts' width, the experts per token and the shared MLPs per layer as lists; each layer
# also runs a shared MLP `intermediate_size` × num_shared_expert wide beside its experts
# (use_mixed_mlp_moe; modeling_hunyuan.py's HunYuanMoE, as in tencent/Hunyuan-A13B's repo).
HUNYUAN_MODEL_TYPE = "hunyuan"
HUNYUAN_PER_LAYER = {
    "moe_intermediate_size": "moe_intermediate_size",
    "moe_topk": "num_experts_per_tok",
    "num_shared_expert": "num_shared_expert",
}


def _per_layer_scalars(config: Mapping[str, object], *, path: str) -> Mapping[str, object]:
    """A Hunyuan config with its per-layer lists read as the one value every layer has; a list
    whose layers differ is refused (the engine's layers of one kind share one shape)."""
    if config.get("model_type") != HUNYUAN_MODEL_TYPE:
        return config
    read = dict(config)
    for key, name in HUNYUAN_PER_LAYER.items():
        value = config.get(key)
        if isinstance(value, list):
            if not value or any(item != value[0] for item in value):
                raise EngineInputError(
                    field=f"{path}.{key}",
                    message="layers of different widths or expert counts are not modeled",
                )
            value = value[0]
        if value is not None:
            read[name] = value
    if read.get("use_mixed_mlp_moe") and read.get("num_shared_expert"):
        shared = _int(read, "num_shared_expert", path=path)
        read["shared_expert_intermediate_size"] = shared * _int(
            read, "intermediate_size", path=path
        )
    return read


def _refuse_unsupported_layers(config: Mapping[str, object], *, path: str) -> None:
    """`EngineInputError` naming the key when the config describes layers with no cost rule."""
    for key, layers in UNSUPPORTED_KEYS.items():
        if config.get(key):
            raise EngineInputError(
                field=f"{path}.{key}",
                message=f"describes {layers}, which the engine does not model",
            )
    types = config.get("layer_types")
    if isinstance(types, list):
        unknown = sorted({str(kind) for kind in types} - ATTENTION_LAYER_TYPES)
        if unknown:
            raise EngineInputError(
                field=f"{path}.layer_types",
                message=f"layer type {unknown[0]!r} has no cost rule in the engine",
            )


def parse_model_config(
    config: Mapping[str, object], *, slug: str, path: str = "model.config"
) -> ModelShape:
    """Read the fields the cost rules need; raise `EngineInputError` naming any missing one."""
    config, path = _text_model(config, path)
    config = _per_layer_scalars(config, path=path)
    _refuse_unsupported_layers(config, path=path)
    hidden = _int(config, "hidden_size", path=path)
    num_layers = _int(config, "num_hidden_layers", path=path)
    experts = _routed_experts(config, path=path)
    moe_width_key = "moe_intermediate_size" if "moe_intermediate_size" in config else None
    llama4 = bool(experts) and config.get("model_type") == LLAMA4_MODEL_TYPE
    shared_count = _opt_int(config, "n_shared_experts", 0, path=path) if experts else 0
    if llama4:
        shared_count = 1
        dense_first = _interleaved_dense_layers(config, num_layers, path=path)
    else:
        dense_first = _dense_first_layers(config, num_layers, path=path) if experts else 0
    # a dense MLP's width: for the dense layers, and as the shared experts' where a config
    # gives one (DeepSeek V4, with neither, has its shared expert moe_intermediate_size wide)
    needs_dense = (
        not experts or dense_first > 0 or (shared_count > 0 and "intermediate_size" in config)
    )
    dense_key = "intermediate_size_mlp" if llama4 and dense_first else "intermediate_size"
    dense_width = _int(config, dense_key, path=path) if needs_dense else 0
    if config.get("model_type") == QWEN1_MODEL_TYPE:
        # First-generation Qwen counts both halves of its gated MLP: QWenMLP's w1 and w2
        # are each intermediate_size // 2 wide (modeling_qwen.py: ff_dim_in =
        # config.intermediate_size // 2), c_proj maps that back to hidden_size.
        dense_width //= 2
    expert_width = 0
    if experts:
        expert_width = _int(config, moe_width_key or "intermediate_size", path=path)
    shared_width = shared_count * expert_width
    if experts and config.get("shared_expert_intermediate_size"):  # Qwen2-MoE style
        shared_width = _int(config, "shared_expert_intermediate_size", path=path)
        shared_count = max(shared_count, 1)
    if experts and config.get("enable_moe_block"):  # Gemma 4: a dense MLP beside the experts
        shared_width = _int(config, "intermediate_size", path=path)
        shared_count = 1
    per_token_key = "top_k_experts" if config.get("top_k_experts") else "num_experts_per_tok"
    attention = _attention(config, hidden, path=path)
    compressed = _compressed_layers(config, num_layers, path=path)
    card = config.get("_card_params_b")
    return ModelShape(
        slug=slug,
        display_name=str(config.get("_display_name") or slug),
        hidden_size=hidden,
        num_layers=num_layers,
        attention=attention,
        dense_intermediate_size=dense_width,
        first_dense_layers=dense_first,
        num_experts=experts,
        experts_per_token=_int(config, per_token_key, path=path) if experts else 0,
        expert_intermediate_size=expert_width,
        shared_expert_count=shared_count,
        shared_expert_intermediate_size=shared_width,
        vocab_size=_int(config, "vocab_size", path=path),
        tie_word_embeddings=bool(config.get("tie_word_embeddings", False)),
        mtp_layers=_opt_int(config, "num_nextn_predict_layers", 0, path=path),
        card_params_b=float(card) if isinstance(card, int | float) else None,
        sliding_window=_opt_int(config, "sliding_window", 0, path=path),
        sliding_layers=_sliding_layers(config, num_layers, path=path),
        attention_chunk=_opt_int(config, "attention_chunk_size", 0, path=path),
        chunked_layers=_chunked_layers(config, num_layers, path=path),
        linear_layers=_linear_layers(config, num_layers, path=path),
        linear_attention=_linear_attention(config, path=path),
        full_attention=_full_attention(config, attention, path=path),
        shared_indexer_layers=_shared_indexer_layers(config, num_layers, path=path),
        csa_layers=compressed[0],
        hca_layers=compressed[1],
        hc_mult=_opt_int(config, "hc_mult", 0, path=path),
        trained_context=_opt_int(config, "max_position_embeddings", 0, path=path) or None,
    )
