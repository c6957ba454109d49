/* The style sheet and script of the html report, kept apart from the
 * page builder so each reads as one thing. No network: everything the page
 * needs is in these two strings. */
#include "config.h"

#include "result/render_html.h"

const char pp_html_css[] =
    "*{box-sizing:border-box}\n"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2330;background:#f6f7f9}\n"
    "main{max-width:1280px;margin:0 auto;padding:18px 24px 48px}\n"
    "h1{font-size:22px;margin:0 0 2px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d8dce3;padding-bottom:4px}\n"
    "h3{font-size:15px;margin:18px 0 6px}h3 small,.sub{color:#667085;font-weight:normal}\n"
    ".card{background:#fff;border:1px solid #e1e4ea;border-radius:6px;padding:10px 14px;margin:8px 0}\n"
    "dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0}\n"
    "dl.kv dt{color:#667085}dl.kv dd{margin:0;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}\n"
    "table{border-collapse:collapse;width:100%;background:#fff}\n"
    "th,td{padding:3px 8px;border-bottom:1px solid #eceef2;text-align:left;vertical-align:top}\n"
    "th{background:#f0f2f5;position:sticky;top:0;cursor:pointer;user-select:none;white-space:nowrap}\n"
    "th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "td.str{overflow-wrap:break-word;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;max-width:70em}\n"
    "td.null{color:#98a2b3}\n"
    ".tbl{margin:10px 0 18px}.tools{display:flex;gap:10px;align-items:center;margin:4px 0}\n"
    ".tools input{padding:3px 6px;border:1px solid #c9ced6;border-radius:4px;min-width:260px}\n"
    ".tools button{padding:2px 8px;border:1px solid #c9ced6;border-radius:4px;background:#fff;cursor:pointer}\n"
    ".scroll{overflow-x:auto;border:1px solid #e1e4ea;border-radius:6px}\n"
    "#answer h2{margin-top:12px}.answer{font-size:15px;border-left:6px solid #2e90fa;overflow-wrap:anywhere}\n"
    ".answer.sev-warning{border-left-color:#f79009}.answer.sev-error{border-left-color:#d92d20}\n"
    ".cand h3{margin:0 0 6px;overflow-wrap:anywhere}.cand dl.kv dd{overflow-wrap:anywhere}\n"
    "details.long{max-width:36em}details.long summary{cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}details.view{margin:8px 0}details.view>summary{cursor:pointer;color:#1f5fbf}\n"
    "tr.more{display:none}.tbl.open tr.more{display:table-row}tr.hide{display:none!important}\n"
    "ul.findings{list-style:none;padding:0;margin:0}\n"
    "ul.findings li{border-left:4px solid #98a2b3;background:#fff;margin:6px 0;padding:6px 10px;border-radius:0 6px 6px 0;overflow-wrap:anywhere}\n"
    "li.sev-error{border-color:#d92d20!important;background:#fef3f2!important}\n"
    "li.sev-warning{border-color:#f79009!important;background:#fffaeb!important}\n"
    "li.sev-info{border-color:#2e90fa!important}\n"
    "li.good{border-color:#12b76a!important;background:#ecfdf3!important}\n"
    ".code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;color:#475467}\n"
    ".badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;margin-left:6px;vertical-align:2px}\n"
    ".b-ok{background:#ecfdf3;color:#067647}.b-failed{background:#fef3f2;color:#b42318}.b-partial{background:#fffaeb;color:#b54708}\n"
    "tr.st-grew td,tr.st-appeared td{background:#fef3f2}tr.st-shrank td,tr.st-disappeared td{background:#ecfdf3}\n"
    "td.st-grew,td.st-appeared{color:#b42318;font-weight:600}td.st-shrank,td.st-disappeared{color:#067647;font-weight:600}\n"
    "tr.noise td{background:none!important}td.noise{font-weight:normal!important}\n"
    "td.neg{color:#067647}td.pos{color:#b42318}\n"
    "iframe.flame{width:100%;border:1px solid #e1e4ea;border-radius:6px;background:#f8f8f0}\n"
    "svg.chart{background:#fff;border:1px solid #e1e4ea;border-radius:6px;margin:4px 8px 4px 0}\n"
    ".charts{display:flex;flex-wrap:wrap}\n"
    "nav a{margin-right:12px;color:#1f5fbf;text-decoration:none}\n"
    "#errors{color:#b42318}\n";

/* Sorting: by data-v (numbers numerically, strings by locale, nulls
 * last); filtering: rows whose text holds every word of the query; long
 * tables show 50 rows until "show all". Errors land in #errors too, so a
 * DOM dump shows them. */
/* In <head>, before any other script: errors of every later script land
 * in #errors (created on demand), so a DOM dump shows them. */
const char pp_html_js_head[] =
    "window.addEventListener('error',function(e){var x=document.getElementById('errors');\n"
    " if(!x){x=document.createElement('pre');x.id='errors';(document.body||document.documentElement).appendChild(x);}\n"
    " x.hidden=false;x.textContent+=String(e.message)+'\\n';});\n";

const char pp_html_js[] =
    "(function(){\n"
    "'use strict';\n"
    "function val(td,num){var v=td.getAttribute('data-v');if(v===null||v==='')return null;return num?parseFloat(v):v;}\n"
    "function sortBy(tb,i,num,th){var body=tb.tBodies[0];if(!body)return;var rows=[].slice.call(body.rows);\n"
    " var dir=th.getAttribute('aria-sort')==='descending'?1:-1;\n"
    " [].forEach.call(tb.tHead.rows[0].cells,function(c){c.removeAttribute('aria-sort');});\n"
    " th.setAttribute('aria-sort',dir===1?'ascending':'descending');\n"
    " rows.sort(function(a,b){var x=val(a.cells[i],num),y=val(b.cells[i],num);\n"
    "  if(x===null&&y===null)return 0;if(x===null)return 1;if(y===null)return -1;\n"
    "  if(num)return dir*(x-y);return dir*String(x).localeCompare(String(y));});\n"
    " rows.forEach(function(r,k){r.classList.toggle('more',k>=50);body.appendChild(r);});}\n"
    "[].forEach.call(document.querySelectorAll('table.data'),function(tb){\n"
    " if(!tb.tHead)return;\n"
    " [].forEach.call(tb.tHead.rows[0].cells,function(th,i){th.addEventListener('click',function(){sortBy(tb,i,th.classList.contains('num'),th);});});\n"
    "});\n"
    "[].forEach.call(document.querySelectorAll('.tbl'),function(box){\n"
    " var f=box.querySelector('input.filter'),tb=box.querySelector('table.data'),all=box.querySelector('button.all'),n=box.querySelector('.count');\n"
    " if(all)all.addEventListener('click',function(){box.classList.toggle('open');all.textContent=box.classList.contains('open')?'show 50':'show all';});\n"
    " if(!f||!tb||!tb.tBodies[0])return;\n"
    " f.addEventListener('input',function(){var q=f.value.toLowerCase().split(/\\s+/).filter(Boolean),shown=0;\n"
    "  [].forEach.call(tb.tBodies[0].rows,function(r){var t=r.textContent.toLowerCase();\n"
    "   var ok=q.every(function(w){return t.indexOf(w)>=0;});r.classList.toggle('hide',!ok);if(ok)shown++;});\n"
    "  if(q.length)box.classList.add('open');if(n)n.textContent=q.length?shown+' matching':'';});\n"
    "});\n"
    "})();\n";
