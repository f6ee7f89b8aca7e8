-- (c) A flood of the costliest requests POST /api/simulate accepts: rankings over the
-- largest grid (1 to 8 GPUs, every storage tier, every RAM size) in refined mode, each with
-- another token target (so none is deduplicated) and from another client address.
dofile(os.getenv("LOAD_DIR") .. "/report.lua")

function request()
  local body = string.format(
    '{"workload": {"kind": "train", "model": "%s", "quant": "NF4d+NF2e", "mode": "refined", ' ..
    '"seq_len": %s, "tokens": %d}, "ranking": {"gpu_count_min": 1, "gpu_count_max": 8, ' ..
    '"ram_gb_min": 0, "storage_tiers": ["gen4_x1", "gen5_x1", "gen4_raid0_x4", "gen5_aic_x4"]}}',
    os.getenv("LOAD_FLOOD_MODEL") or "glm-4.7", os.getenv("LOAD_FLOOD_SEQ_LEN") or "4096",
    60000000 + next_unique())
  return wrk.format("POST", "/api/simulate", client_headers(), body)
end
