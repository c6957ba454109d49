-- wrk-json.lua: make wrk write its summary as one JSON object perfpipe reads
-- (kind load). wrk's Lua has no JSON library, so the object is written by hand.
--
--   wrk -t2 -c10 -d5s --latency -s wrk-json.lua http://127.0.0.1:8080/ -- c=10 d=5s
--
-- wrk does not show a script its -c/-d flags: repeat them after "--" as c=N and
-- d=DURATION (and rate=R for wrk2) so the knobs land in the file. The threads
-- are counted here. The JSON goes to the file named by WRK_JSON (env), else to
-- stdout after wrk's own report (perfpipe finds the object at the end of it).
-- Status codes are counted per thread by response() (this makes wrk read each
-- response's status, a small cost wrk skips without a script).

local threads = {}

-- init runs in each thread's Lua state (done() runs in the main one, which
-- never sees the arguments): the knobs are read back from a thread.
function init(args)
   statuses = {}
   knobs = {}
   for _, a in ipairs(args) do
      local k, v = a:match("^([%w_]+)=(.*)$")
      if k then knobs[k] = v end
   end
end

function setup(thread)
   table.insert(threads, thread)
end

function response(status, headers, body)
   local k = tostring(status)
   statuses[k] = (statuses[k] or 0) + 1
end

local function q(s)
   return '"' .. tostring(s):gsub('[%c"\\]', function(c)
      return string.format("\\u%04x", c:byte())
   end) .. '"'
end

function done(summary, latency, requests)
   local total = {}
   local knobs = (threads[1] and threads[1]:get("knobs")) or {}
   for _, t in ipairs(threads) do
      local s = t:get("statuses")
      if s then
         for k, v in pairs(s) do total[k] = (total[k] or 0) + v end
      end
   end
   local out = {}
   local function add(s) out[#out + 1] = s end
   add('{"tool":"wrk","format":"perfpipe-wrk-json/1"')
   add(string.format(',"url":%s', q(wrk.scheme .. "://" .. wrk.host .. ":" ..
      (wrk.port or "") .. wrk.path)))
   add(string.format(',"threads":%d', #threads))
   for _, k in ipairs({"c", "d", "rate"}) do
      if knobs[k] then add(string.format(',"arg_%s":%s', k, q(knobs[k]))) end
   end
   add(string.format(',"duration_us":%d,"requests":%d,"bytes":%d',
      summary.duration, summary.requests, summary.bytes))
   local e = summary.errors
   add(string.format(',"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}',
      e.connect, e.read, e.write, e.status, e.timeout))
   add(string.format(',"latency_us":{"min":%d,"max":%d,"mean":%.3f,"stdev":%.3f',
      latency.min, latency.max, latency.mean, latency.stdev))
   for _, p in ipairs({50, 75, 90, 95, 99, 99.9}) do
      add(string.format(',"p%s":%d', tostring(p), latency:percentile(p)))
   end
   -- Every latency wrk counted: latency(i) gives the i-th distinct value and
   -- how often it was counted. wrk 4.x adds samples after the run for each
   -- response slower than twice its expected interval (its coordinated-omission
   -- correction), so samples beyond "requests" are synthetic.
   local samples = 0
   for i = 1, #latency do
      local _, n = latency(i)
      samples = samples + n
   end
   add(string.format(',"samples":%d}', samples))
   add(string.format(',"thread_rps":{"min":%.3f,"max":%.3f,"mean":%.3f,"stdev":%.3f}',
      requests.min, requests.max, requests.mean, requests.stdev))
   local sc = {}
   for k, v in pairs(total) do sc[#sc + 1] = string.format('%s:%d', q(k), v) end
   table.sort(sc)
   add(',"status_codes":{' .. table.concat(sc, ",") .. '}}')
   local text = table.concat(out) .. "\n"
   local path = os.getenv("WRK_JSON")
   if path and path ~= "" then
      local f = assert(io.open(path, "w"))
      f:write(text)
      f:close()
   else
      io.write(text)
   end
end
