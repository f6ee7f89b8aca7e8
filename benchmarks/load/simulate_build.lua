-- (b) POST /api/simulate for one catalog build. Every request asks for another token
-- target, so each one is simulated and stored (no stored run is reused), and comes from
-- another client address (X-Forwarded-For, TRUSTED_PROXY_COUNT=1), as many users would.
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
local build_id = os.getenv("LOAD_BUILD_ID") or "1"

function request()
  local body = string.format(
    '{"workload": {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", ' ..
    '"tokens": %d}, "build_id": %s}', 50000000 + next_unique(), build_id)
  return wrk.format("POST", "/api/simulate", client_headers(), body)
end
