-- Shared by the scenarios: count answers by status in every thread, and print one JSON
-- line of results (requests/s, p50/p99 latency, status counts, socket errors) at the end.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_id", #threads)
end

function init(args)
  statuses = {}
  math.randomseed(os.time() * 100 + (thread_id or 0))
end

-- A value no other request of this run uses: distinct inputs are never deduplicated.
counter = 0
function next_unique()
  counter = counter + 1
  return counter * 64 + (thread_id or 0)
end

-- Another client address each time, as many users behind the trusted proxy would send.
function client_headers()
  return {
    ["Content-Type"] = "application/json",
    ["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.random(0, 255),
      math.random(0, 255), math.random(1, 254)),
  }
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do
      counts[status] = (counts[status] or 0) + n
    end
  end
  local parts = {}
  for status, n in pairs(counts) do
    table.insert(parts, string.format('"%d": %d', status, n))
  end
  local e = summary.errors
  io.write(string.format(
    'RESULT {"requests": %d, "duration_s": %.2f, "rps": %.1f, "p50_ms": %.2f, ' ..
    '"p90_ms": %.2f, "p99_ms": %.2f, "max_ms": %.2f, "statuses": {%s}, ' ..
    '"socket_errors": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, table.concat(parts, ", "),
    e.connect + e.read + e.write + e.timeout))
end
