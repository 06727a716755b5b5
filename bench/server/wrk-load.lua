-- The load script `wrk-load.mjs` gives wrk (a C load generator, Debian's
-- `wrk`): requests the paths of a file in turn (GETs, or WRK_METHOD with the
-- body WRK_BODY), either as fast as the connections allow (closed loop: the
-- maximum rate) or on a fixed schedule (open loop: latency at a chosen rate).
--
--   [WRK_RATE=N] [WRK_METHOD=POST WRK_BODY=...] wrk -t1 -c64 -d10s -s wrk-load.lua URL -- PATHS_FILE
--
-- With WRK_RATE (read when the script loads: wrk decides then, once for all
-- threads, whether the script paces requests), request i of the thread is
-- due at start + i / WRK_RATE. A connection that comes free takes the next due moment and waits for it
-- (wrk's `delay`, whole milliseconds), or sends at once when it is already
-- past: a stalled server makes requests late instead of thinning them, and
-- how late they went out (the send lag) is reported beside the latency, which
-- wrk itself measures from the request's write to its answer's last byte.
local ffi = require("ffi")
ffi.cdef([[
  typedef struct { long tv_sec; long tv_nsec; } genvideo_timespec;
  int clock_gettime(int clock_id, genvideo_timespec *time);
]])
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("genvideo_timespec")

local function nowMs()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

-- Send lag histogram: 0.1 ms buckets up to 1 s, the last bucket holding the rest.
local LAG_BUCKET_MS = 0.1
local LAG_BUCKETS = 10000

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

-- Per thread (each runs its own copy of this script).
local rate = tonumber(os.getenv("WRK_RATE"))
local interval = rate and 1000 / rate
local method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
local requests = {}
local nextRequest = 0
local startedAt
local scheduled = 0
lagCounts = {}
lagMaxMs = 0

function init(args)
  for path in io.lines(args[1]) do
    if path ~= "" then table.insert(requests, wrk.format(method, path, nil, body)) end
  end
  -- The closed loop has no schedule, so no send lag to count.
  if rate then
    for bucket = 0, LAG_BUCKETS do lagCounts[bucket] = 0 end
  end
end

-- Defined only with a rate: wrk then asks it before every request.
local function paced()
  local now = nowMs()
  startedAt = startedAt or now
  local due = startedAt + scheduled * interval
  scheduled = scheduled + 1
  local wait = due - now
  if wait > 0 then
    lagCounts[0] = lagCounts[0] + 1
    return math.floor(wait + 0.5)
  end
  local lag = -wait
  if lag > lagMaxMs then lagMaxMs = lag end
  local bucket = math.min(LAG_BUCKETS, math.floor(lag / LAG_BUCKET_MS))
  lagCounts[bucket] = lagCounts[bucket] + 1
  return 0
end
if rate then delay = paced end

function request()
  nextRequest = nextRequest % #requests + 1
  return requests[nextRequest]
end

local function lagPercentile(counts, total, fraction)
  local wanted = math.ceil(total * fraction)
  local seen = 0
  for bucket = 0, LAG_BUCKETS do
    seen = seen + (counts[bucket] or 0)
    if seen >= wanted then return bucket * LAG_BUCKET_MS end
  end
  return LAG_BUCKETS * LAG_BUCKET_MS
end

-- One JSON line for wrk-load.mjs: latencies in milliseconds.
function done(summary, latency)
  local counts, total, lagMax = {}, 0, 0
  for _, thread in ipairs(threads) do
    local threadCounts = thread:get("lagCounts") or {}
    for bucket, count in pairs(threadCounts) do
      counts[bucket] = (counts[bucket] or 0) + count
      total = total + count
    end
    lagMax = math.max(lagMax, thread:get("lagMaxMs") or 0)
  end
  local errors = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationMs":%.3f,"p50":%.3f,"p90":%.3f,"p99":%.3f,"p999":%.3f,"max":%.3f,' ..
      '"non2xx":%d,"failures":%d,"sendLag":{"p50":%.1f,"p99":%.1f,"max":%.1f}}\n',
    summary.requests,
    summary.duration / 1000,
    latency:percentile(50) / 1000,
    latency:percentile(90) / 1000,
    latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000,
    latency.max / 1000,
    errors.status,
    errors.connect + errors.read + errors.write + errors.timeout,
    total > 0 and lagPercentile(counts, total, 0.5) or 0,
    total > 0 and lagPercentile(counts, total, 0.99) or 0,
    lagMax
  ))
end
