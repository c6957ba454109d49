-- wrk-cap.lua: examples/wrk-json/wrk-json.lua with a cap on the responses counted, for the capture
-- scripts whose profiles record every request (the database profile writes ~10 KB of events a
-- request under closed loop): `-- max=N` after wrk's arguments stops the (single) thread once N
-- responses are in, so the trace of a 1 s window holds N requests, not thousands. wrk still
-- reports over its whole -d (duration_us); perfpipe's unit of work is the request count.
--   WRK_JSON_LUA=examples/wrk-json/wrk-json.lua wrk -t1 -cN -d1s -s wrk-cap.lua URL -- c=N d=1s max=M
dofile(assert(os.getenv("WRK_JSON_LUA"), "WRK_JSON_LUA: the path of wrk-json.lua"))
local json_init, json_response = init, response
local seen, cap = 0, nil

function init(args)
   json_init(args)
   cap = tonumber(knobs.max)
end

function response(status, headers, body)
   json_response(status, headers, body)
   seen = seen + 1
   if cap and seen >= cap then wrk.thread:stop() end
end
