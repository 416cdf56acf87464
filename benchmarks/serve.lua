-- wrk script for benchmarks/serve.py: every request is a path drawn at random from a file of
-- paths (one a line, the pool of distinct states); the answers are counted by status class and
-- by the server's X-Cache header; ``done`` prints one JSON line for serve.py to read.

local threads = {}
local counter = 0

function setup(thread)
   counter = counter + 1
   thread:set("id", counter)
   table.insert(threads, thread)
end

function init(args)
   paths = {}
   for line in io.lines(args[1]) do
      if #line > 0 then paths[#paths + 1] = line end
   end
   math.randomseed(1000 + id)
   s2xx, s3xx, s4xx, s5xx, hits, misses = 0, 0, 0, 0, 0, 0
end

function request()
   return wrk.format("GET", paths[math.random(#paths)])
end

function response(status, headers, body)
   if status < 300 then s2xx = s2xx + 1
   elseif status < 400 then s3xx = s3xx + 1
   elseif status < 500 then s4xx = s4xx + 1
   else s5xx = s5xx + 1 end
   local cache = headers["x-cache"] or headers["X-Cache"]
   if cache == "HIT" then hits = hits + 1 elseif cache == "MISS" then misses = misses + 1 end
end

function done(summary, latency, requests)
   local total = {s2xx = 0, s3xx = 0, s4xx = 0, s5xx = 0, hits = 0, misses = 0}
   for _, thread in ipairs(threads) do
      for name, _ in pairs(total) do total[name] = total[name] + thread:get(name) end
   end
   local e = summary.errors
   io.write(string.format(
      '{"requests": %d, "duration_us": %d, "status_2xx": %d, "status_3xx": %d, "status_4xx": %d, ' ..
      '"status_5xx": %d, "transport_errors": %d, "hits": %d, "misses": %d, ' ..
      '"p50_us": %d, "p99_us": %d, "max_us": %d}\n',
      summary.requests, summary.duration, total.s2xx, total.s3xx, total.s4xx, total.s5xx,
      e.connect + e.read + e.write + e.timeout, total.hits, total.misses,
      latency:percentile(50), latency:percentile(99), latency.max))
end
