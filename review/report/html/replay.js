(function () {
  'use strict';
  // Every recorded text reaches the page through textContent or an
  // attribute set with setAttribute: never as markup.
  var D = JSON.parse(document.getElementById('data').textContent);
  var LAYERS = [
    ['system', 'system prompt', '#7c3aed'],
    ['learnings', 'team learnings', '#c026d3'],
    ['tools', 'tool definitions', '#a78bfa'],
    ['diff', 'diff context', '#2563eb'],
    ['summary', 'summary', '#0891b2'],
    ['window', 'history window', '#059669'],
    ['loop', 'current loop', '#f59e0b'],
    ['previews', 'of which tool results (previews)', '#ea580c'],
    ['other', 'layer not recorded', '#9ca3af']
  ];
  var outputs = {};
  D.outputs.forEach(function (o) { outputs[o.ref] = o; });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function svg(tag, attrs) {
    var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }
  function fmt(n) { return Number(n || 0).toLocaleString('en-US'); }
  function size(n) {
    if (n < 1024) return n + ' B';
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
    return (n / 1024 / 1024).toFixed(1) + ' MB';
  }
  function plural(n, w) { return fmt(n) + ' ' + w + (n === 1 ? '' : 's'); }
  function pretty(s) {
    try { return JSON.stringify(JSON.parse(s), null, 2); } catch (e) { return String(s); }
  }
  function stepLink(n) {
    var a = el('a', '', 'step ' + n);
    a.setAttribute('href', '#step-' + n);
    a.addEventListener('click', function (ev) { ev.preventDefault(); openStep(n, null); });
    return a;
  }

  // The run.
  function summary() {
    var dl = document.getElementById('summary');
    var r = D.run;
    function row(k, v) {
      if (v === undefined || v === null || v === '') return;
      add(dl, el('dt', '', k));
      var dd = add(dl, el('dd'));
      if (v instanceof Node) dd.appendChild(v); else dd.textContent = String(v);
    }
    row('Run', r.ID);
    row('Status', r.Status);
    if (r.Error) row('Error', r.Error);
    row('Repository', r.Repo);
    row('Revisions', (r.Base || '?') + ' (' + (r.BaseSHA || '').slice(0, 12) + ') → ' + (r.Head || '?') + ' (' + (r.HeadSHA || '').slice(0, 12) + ')');
    row('Model', r.Model);
    row('Started', r.Started);
    row('Ended', r.Ended);
    var u = D.usage || {};
    row('Requests', fmt(u.requests));
    row('Prompt tokens', fmt(u.prompt_tokens) + ' (' + fmt(u.cached_tokens) + ' cached; our count ' + fmt(u.own_prompt_tokens) + ')');
    row('Completion tokens', fmt(u.completion_tokens) + (u.reasoning_tokens ? ' (' + fmt(u.reasoning_tokens) + ' reasoning)' : ''));
    row('Cost', D.cost ? 'about ' + D.cost + ' at the model\'s list price' : '');
    var s = D.settings || {};
    var b = s.budget || {};
    row('Budget', 'window ' + fmt(b.context_window) + ' · answer reserve ' + fmt(b.answer_reserve) + ' · static share ' + b.static_share +
      ' · previews ' + fmt(b.preview_chars) + ' chars · ' + fmt(b.max_steps) + ' steps at most · history ' + fmt(b.history_turns) + ' turns / ' + fmt(b.history_chars) + ' chars');
    row('Settings', s.tokenizer ? 'tokenizer ' + s.tokenizer + (s.base_url ? ' · endpoint ' + s.base_url : '') + (s.off_diff ? ' · off-diff ' + s.off_diff : '') : '');
    var det = el('details');
    add(det, el('summary', '', 'as recorded'));
    add(det, el('pre', '', JSON.stringify(D.settings, null, 2)));
    row('All settings', det);
  }

  function efficiency() {
    var p = document.getElementById('efficiency');
    var e = D.efficiency;
    if (!e) { p.textContent = 'No request was recorded.'; return; }
    p.textContent = fmt(e.sent_tokens) + ' tokens sent in ' + plural(e.requests, 'request') + ' against ' +
      fmt(e.naive_tokens) + ' for a naive transcript of the same run (every tool output inline and whole, nothing pruned): ratio ' +
      e.ratio.toFixed(2) + '. Largest request: ' + fmt(e.largest_request_tokens) + ' tokens (step ' + e.largest_step + ')' +
      (e.context_window ? ', ' + (100 * e.largest_window_share).toFixed(1) + '% of the ' + fmt(e.context_window) + '-token window' : '') +
      '; the naive transcript\'s largest: ' + fmt(e.naive_largest_request_tokens) +
      (e.context_window && e.naive_largest_request_tokens > e.context_window ? ', which would not fit.' : '.') +
      (e.estimated ? ' These figures are estimates: the run was counted with --tokenizer estimate.' : '');
  }

  function findings() {
    var ul = document.getElementById('findings');
    if (D.result) { result(ul); return; }
    if (!D.findings.length) { add(ul, el('li', '', 'No findings were submitted.')); return; }
    D.findings.forEach(function (f) {
      var li = add(ul, el('li', 'finding'));
      li.setAttribute('data-step', f.step);
      add(li, el('span', 'sev sev-' + String(f.severity).replace(/[^a-z]/g, ''), f.severity));
      add(li, el('code', '', f.path + (f.line ? ':' + f.line : '')));
      li.appendChild(document.createTextNode(' '));
      add(li, el('strong', '', f.title));
      li.appendChild(document.createTextNode(' · submitted at '));
      li.appendChild(stepLink(f.step));
      if (f.body) add(li, el('div', 'sub', f.body));
    });
  }

  // The result the run's outputs showed: its summary, the findings as
  // reported (merged, held back as configured), each with the code lines
  // the model was shown of it and where, then those held back or left
  // out with their reasons, and the files not reviewed.
  function location(f) {
    return f.path + (f.line ? ':' + f.line + (f.end_line > f.line ? '-' + f.end_line : '') : '');
  }
  function evidence(li, f) {
    if (!f.evidence || !f.evidence.length) {
      add(li, el('div', 'sub', 'The model was never shown the lines this finding cites.'));
      return;
    }
    f.evidence.forEach(function (e) {
      var d = add(li, el('div', 'sub'));
      d.appendChild(document.createTextNode((e.end_line > e.start_line ? 'Lines ' + e.start_line + '-' + e.end_line : 'Line ' + e.start_line) + ' shown in '));
      if (e.source === 'diff') {
        d.appendChild(document.createTextNode(e.unit ? 'the diff context of unit ' + e.unit : 'the diff context'));
        var first = e.unit ? (D.result.units || {})[e.unit] : 0;
        if (first) { d.appendChild(document.createTextNode(', from ')); d.appendChild(stepLink(first)); }
      } else {
        d.appendChild(document.createTextNode('the output of ' + (e.tool || 'a tool') + ' '));
        add(d, el('code', '', e.source));
        var n = D.result.stored[e.source];
        if (n) { d.appendChild(document.createTextNode(', called at ')); d.appendChild(stepLink(n)); }
      }
      if (e.text && e.text.length) add(li, el('pre', 'evidence', e.text.join('\n')));
    });
  }
  function finding(ul, f, reason) {
    var li = add(ul, el('li', 'finding'));
    add(li, el('span', 'sev sev-' + String(f.severity).replace(/[^a-z]/g, ''), f.severity));
    add(li, el('code', '', location(f)));
    li.appendChild(document.createTextNode(' '));
    add(li, el('strong', '', f.title));
    li.appendChild(document.createTextNode(f.grounded ? ' · grounded' : ' · not grounded'));
    if (reason) add(li, el('div', 'sub', reason));
    if (f.body) add(li, el('div', 'sub', f.body));
    if (f.note) add(li, el('div', 'sub', f.note));
    evidence(li, f);
    return li;
  }
  function result(ul) {
    var r = D.result;
    var sec = ul.parentNode;
    var head = el('div');
    sec.insertBefore(head, ul);
    add(head, el('p', '', r.summary || '(no summary)'));
    if (!r.submitted) add(head, el('p', 'sub', 'The model did not submit a structured review; its last message is the summary.'));
    add(head, el('p', 'sub', plural(r.findings.length, 'finding') + ' reported' + (r.held ? '; ' + r.held : '') + '.'));
    if (!r.findings.length) add(ul, el('li', '', 'No findings.'));
    r.findings.forEach(function (f) { finding(ul, f, ''); });
    function list(title, items, each) {
      if (!items.length) return;
      add(sec, el('h3', '', title + ' (' + items.length + ')'));
      var l = add(sec, el('ul'));
      items.forEach(function (x) { each(l, x); });
    }
    list('Not checked against the code it names', r.ungrounded, function (l, f) { finding(l, f, ''); });
    list('Withheld', r.withheld, function (l, d) { finding(l, d.finding, d.reason); });
    list('Left out', r.dropped, function (l, d) { finding(l, d.finding, d.reason); });
    list('Files not reviewed', r.not_reviewed, function (l, n) {
      var li = add(l, el('li'));
      add(li, el('code', '', n.path));
      li.appendChild(document.createTextNode(' · ' + n.hunks_not_reviewed + ' of ' + n.hunks + ' hunks · ' + n.reason));
    });
  }

  // The chart: one bar per request, its layers stacked from the bottom in
  // the order a request carries them; the current loop split into its
  // tool results and the rest. Prune events are marked above their bar.
  function chart() {
    var box = document.getElementById('chart');
    var legend = document.getElementById('legend');
    LAYERS.forEach(function (l) {
      var s = add(legend, el('span'));
      var i = add(s, el('i'));
      i.style.background = l[2];
      s.appendChild(document.createTextNode(l[1]));
    });
    var ns = add(legend, el('span'));
    add(ns, el('i', 'naive-key'));
    ns.appendChild(document.createTextNode('naive transcript'));
    var ps = add(legend, el('span'));
    add(ps, el('i', 'prune-key'));
    ps.appendChild(document.createTextNode('pruned before the request'));
    var steps = D.steps;
    if (!steps.length) { box.textContent = 'No requests were recorded.'; return; }
    var maxT = 1, maxN = 0;
    steps.forEach(function (s) { maxT = Math.max(maxT, s.tokens); maxN = Math.max(maxN, s.naive); });
    var win = D.efficiency ? D.efficiency.context_window : 0;
    // The naive transcript is drawn behind each bar, whole: the
    // comparison is what the chart is for.
    var top = Math.max(maxT, maxN);
    var showWin = win > 0 && win <= top * 1.25;
    if (showWin) top = Math.max(top, win);
    var H = 260, padT = 22, padB = 22, padL = 64, gap = 6;
    var bw = Math.max(6, Math.min(48, Math.floor(1000 / steps.length) - gap));
    var W = Math.max(padL + steps.length * (bw + gap) + 10, 480);
    var g = svg('svg', { width: W, height: H + padT + padB, role: 'img', 'aria-label': 'tokens of each request by layer' });
    function y(v) { return padT + H - (Math.min(v, top) / top) * H; }
    [0, 0.5, 1].forEach(function (f) {
      var v = Math.round(top * f);
      add(g, svg('line', { x1: padL - 4, x2: W, y1: y(v), y2: y(v), stroke: '#e5e7eb' }));
      add(g, svg('text', { x: padL - 6, y: y(v) + 4, 'text-anchor': 'end' })).textContent = fmt(v);
    });
    steps.forEach(function (s, i) {
      var x = padL + i * (bw + gap);
      var bar = add(g, svg('g', { 'class': 'bar', 'data-step': s.n, 'data-total': s.tokens, 'data-naive': s.naive }));
      var L = s.layers || {};
      var parts = [
        ['system', L.system], ['learnings', L.learnings], ['tools', L.tools], ['diff', L.diff], ['summary', L.summary], ['window', L.window],
        ['loop', (L.loop || 0) - (L.previews || 0)], ['previews', L.previews], ['other', L.other]
      ];
      if (s.naive > s.tokens) {
        var nv = add(bar, svg('rect', { 'class': 'naive', x: x, y: y(s.naive), width: bw, height: y(0) - y(s.naive), 'data-tokens': s.naive }));
        add(nv, svg('title')).textContent = 'step ' + s.n + ': ' + fmt(s.naive) + ' tokens in a naive transcript';
        if (s.naive > top) add(bar, svg('path', { 'class': 'naive-more', d: 'M' + (x + bw / 2 - 5) + ' ' + (padT + 6) + ' l5 -6 l5 6 z' }));
      }
      var acc = 0;
      var tip = 'step ' + s.n + ': ' + fmt(s.tokens) + ' tokens (naive transcript ' + fmt(s.naive) + ')';
      parts.forEach(function (p, k) {
        var v = p[1] || 0;
        var color = LAYERS.filter(function (l) { return l[0] === p[0]; })[0][2];
        var r = add(bar, svg('rect', { x: x, y: y(acc + v), width: bw, height: Math.max(0, y(acc) - y(acc + v)), fill: color, 'data-layer': p[0], 'data-tokens': v }));
        add(r, svg('title')).textContent = 'step ' + s.n + ' · ' + LAYERS.filter(function (l) { return l[0] === p[0]; })[0][1] + ': ' + fmt(v) + ' tokens';
        acc += v;
        if (v) tip += '\n' + p[0] + ' ' + fmt(v);
      });
      add(bar, svg('title')).textContent = tip;
      bar.addEventListener('click', function () { openStep(s.n, null); });
      if (s.prunes.length) {
        var m = add(g, svg('path', { 'class': 'prune', 'data-step': s.n, d: 'M' + (x + bw / 2 - 5) + ' ' + (y(acc) - 12) + ' h10 l-5 8 z' }));
        add(m, svg('title')).textContent = 'step ' + s.n + ': the conversation was pruned before this request';
      }
      if (steps.length <= 40 || i % Math.ceil(steps.length / 40) === 0) {
        add(g, svg('text', { x: x + bw / 2, y: padT + H + 14, 'text-anchor': 'middle' })).textContent = String(s.n);
      }
    });
    if (showWin) {
      add(g, svg('line', { 'class': 'window', x1: padL, x2: W, y1: y(win), y2: y(win) }));
      add(g, svg('text', { x: W - 4, y: y(win) - 4, 'text-anchor': 'end' })).textContent = 'context window ' + fmt(win);
    }
    box.appendChild(g);
    if (win && !showWin) add(box, el('p', 'sub', 'The context window, ' + fmt(win) + ' tokens, is above the scale; the largest request is ' + fmt(maxT) + '.'));
  }

  // The timeline: a lane per unit run side by side (one lane for a run
  // made in sequence), each request a bar from its start to its answer.
  function timeline() {
    var box = document.getElementById('timeline');
    var steps = D.steps;
    if (!steps.length) { box.textContent = 'No requests were recorded.'; return; }
    var lanes = [], index = {};
    var end = 1;
    steps.forEach(function (s) {
      var k = s.unit || 0;
      if (!(k in index)) { index[k] = lanes.length; lanes.push(k); }
      end = Math.max(end, s.at + Math.max(s.took, 0));
    });
    lanes.sort(function (a, b) { return a - b; });
    lanes.forEach(function (k, i) { index[k] = i; });
    var padL = 64, padT = 8, row = 22, W = 1000, H = lanes.length * row;
    var g = svg('svg', { width: padL + W + 10, height: H + padT + 24, role: 'img', 'aria-label': 'when each request ran' });
    function x(ms) { return padL + (ms / end) * W; }
    lanes.forEach(function (k, i) {
      add(g, svg('text', { x: padL - 6, y: padT + i * row + 15, 'text-anchor': 'end' })).textContent = k ? 'unit ' + k : 'run';
    });
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      add(g, svg('line', { x1: x(end * f), x2: x(end * f), y1: padT, y2: padT + H, stroke: '#e5e7eb' }));
      add(g, svg('text', { x: x(end * f), y: padT + H + 16, 'text-anchor': 'middle' })).textContent = (end * f / 1000).toFixed(2) + ' s';
    });
    steps.forEach(function (s) {
      var took = s.took < 0 ? end - s.at : s.took;
      var r = add(g, svg('rect', { 'class': 'span' + (s.error ? ' failed' : ''), 'data-step': s.n, 'data-unit': s.unit || 0, 'data-at': s.at, 'data-took': s.took,
        x: x(s.at), y: padT + index[s.unit || 0] * row + 3, width: Math.max(2, x(s.at + took) - x(s.at)), height: row - 6 }));
      add(r, svg('title')).textContent = 'step ' + s.n + (s.unit ? ' · unit ' + s.unit : '') + ' · ' + (s.at / 1000).toFixed(2) + ' s → ' +
        (s.took < 0 ? 'no answer' : ((s.at + s.took) / 1000).toFixed(2) + ' s · ' + (s.took / 1000).toFixed(2) + ' s') + (s.error ? ' · ' + s.error : '');
      r.addEventListener('click', function () { openStep(s.n, null); });
    });
    box.appendChild(g);
  }

  // The steps, each drawn when first opened.
  var stepEls = {};
  function steps() {
    var box = document.getElementById('steps');
    // A unit's steps are numbered in the run and, within the unit, from 1.
    var ofUnit = {}, counted = {};
    D.steps.forEach(function (s) {
      if (s.unit) { counted[s.unit] = (counted[s.unit] || 0) + 1; ofUnit[s.n] = counted[s.unit]; }
    });
    D.steps.forEach(function (s) {
      var d = add(box, el('details', 'step'));
      d.id = 'step-' + s.n;
      d.setAttribute('data-step', s.n);
      var calls = s.resp.calls.map(function (c) { return c.name; }).join(', ');
      var head = 'Step ' + s.n + (s.unit ? ' · unit ' + s.unit + ', its step ' + ofUnit[s.n] : ' · turn ' + s.turn) +
        (s.choice === 'submit_verdicts' ? ' · verification' : '') + ' · ' + plural(s.msgs.length, 'message') + ' · ' + fmt(s.tokens) + ' tokens by our count' +
        (s.resp.prompt ? ', ' + fmt(s.resp.prompt) + ' by the server\'s' : '') + ' (naive transcript ' + fmt(s.naive) + ')';
      if (s.took >= 0) head += ' · ' + (s.took / 1000).toFixed(2) + ' s';
      if (s.prunes.length) head += ' · pruned before';
      head += ' → ' + (s.error ? 'error' : calls ? calls : s.resp.text ? 'text' : s.resp.raw ? 'not a completion' : 'no response');
      add(d, el('summary', '', head));
      d.addEventListener('toggle', function () { if (d.open) render(d, s); });
      stepEls[s.n] = d;
    });
    document.getElementById('expand-all').addEventListener('click', function () {
      D.steps.forEach(function (s) { stepEls[s.n].open = true; render(stepEls[s.n], s); });
    });
    document.getElementById('collapse-all').addEventListener('click', function () {
      D.steps.forEach(function (s) { stepEls[s.n].open = false; });
    });
  }

  function render(d, s) {
    if (d.getAttribute('data-drawn')) return;
    d.setAttribute('data-drawn', '1');
    var b = add(d, el('div', 'body'));
    add(b, el('p', 'sub', 'Sent ' + s.started + (s.ended ? ', answered ' + s.ended : '') + ' · ' + size(s.bytes) + ' as sent · tool_choice ' + (s.choice || 'auto') +
      (s.recorded ? '' : ' · figures counted again from the records (the run recorded none)')));
    if (s.error) add(b, el('p', 'err', 'Error: ' + s.error));
    var t = add(b, el('table', 'layers'));
    var hr = add(t, el('tr'));
    var dr = add(t, el('tr'));
    LAYERS.forEach(function (l) {
      add(hr, el('th', '', l[1]));
      add(dr, el('td', '', fmt((s.layers || {})[l[0]])));
    });
    add(hr, el('th', '', 'total'));
    add(dr, el('td', '', fmt(s.tokens)));
    s.prunes.concat(s.events).forEach(function (e, i) {
      add(b, el('div', 'sub', 'Before this request: ' + ((s.said || [])[i] || 'an event.')));
      var det = add(b, el('details'));
      add(det, el('summary', '', 'the event as recorded'));
      add(det, el('pre', 'event', pretty(e)));
    });
    add(b, el('h3', '', 'Request: ' + plural(s.msgs.length, 'message')));
    var list = add(b, el('div', 'msgs'));
    s.msgs.forEach(function (m, i) {
      var md = add(list, el('details', 'msg'));
      md.setAttribute('data-index', i + 1);
      var sm = add(md, el('summary'));
      add(sm, el('span', '', String(i + 1).padStart(3, ' ') + ' '));
      add(sm, el('span', 'role-' + m.role, m.role));
      add(sm, el('span', 'kind', ' · ' + m.layer + ' · ' + fmt(m.tokens) + ' tok' + (m.kind ? ' · ' + m.kind : '') + (m.ref ? ' of ' + m.ref : '') + ' · '));
      var line = D.texts[m.text] || (m.calls || []).map(function (c) { return '→ ' + c.name + ' ' + c.args; }).join('; ');
      add(sm, el('span', '', oneLine(line, 100)));
      add(md, el('pre', 'content', D.texts[m.text]));
      (m.calls || []).forEach(function (c) { add(md, el('pre', 'call', '→ ' + c.name + ' ' + c.args)); });
    });
    add(b, el('h3', '', 'Response'));
    var r = s.resp;
    if (r.raw) {
      add(b, el('p', 'err', 'Not a chat completion; as received:'));
      add(b, el('pre', 'response', r.raw));
    } else {
      add(b, el('p', 'sub', 'finish ' + (r.finish || '?') + ' · ' + fmt(r.prompt) + ' prompt + ' + fmt(r.completion) + ' completion tokens as the server counted them'));
      if (r.text) add(b, el('pre', 'response', r.text));
      r.calls.forEach(function (c) {
        var cd = add(b, el('div', 'call'));
        add(cd, el('div', 'mono', '→ ' + c.name));
        add(cd, el('pre', '', pretty(c.args)));
        if (c.preview >= 0) {
          var pd = add(cd, el('details', 'preview'));
          add(pd, el('summary', '', 'what the model got back' + (c.ref ? ' (stored as ' + c.ref + ')' : '')));
          add(pd, el('pre', '', D.texts[c.preview]));
        }
      });
    }
    var outs = D.outputs.filter(function (o) { return o.step === s.n; });
    if (outs.length) {
      add(b, el('h3', '', 'Stored outputs'));
      outs.forEach(function (o) { b.appendChild(outputBlock(o)); });
    }
  }

  function outputBlock(o) {
    var box = el('div', 'output');
    box.id = 'out-' + o.ref;
    box.setAttribute('data-ref', o.ref);
    add(box, el('div', 'mono', o.ref + ' · ' + o.tool + ' ' + o.args));
    var inline = o.text.length > D.inline ? o.text.slice(0, D.inline) : o.text;
    var shown = o.text.length > D.inline || !o.whole;
    add(box, el('div', 'sub', size(o.bytes) + ', ' + plural(o.lines, 'line') + (shown ? ' · first ' + size(D.inline) + ' shown' : '')));
    var pre = add(box, el('pre', 'out-text', inline));
    if (o.whole && o.text.length > D.inline) {
      var btn = add(box, el('button', 'whole', 'Show all ' + size(o.bytes)));
      btn.type = 'button';
      btn.addEventListener('click', function () { pre.textContent = o.text; btn.remove(); });
    } else if (!o.whole) {
      add(box, el('div', 'sub', 'Too large to carry whole here: review memory show ' + o.ref));
    }
    return box;
  }

  function oneLine(s, n) {
    s = String(s).replace(/\s+/g, ' ').trim();
    return s.length > n ? s.slice(0, n - 1) + '…' : s;
  }

  // openStep opens step n and, if given, scrolls to the element of it
  // that match selects.
  function openStep(n, select) {
    var d = stepEls[n];
    if (!d) return;
    d.open = true;
    render(d, D.steps.filter(function (s) { return s.n === n; })[0]);
    var target = d;
    if (select) {
      var t = d.querySelector(select);
      if (t) {
        target = t;
        if (t.tagName === 'DETAILS') t.open = true;
        var btn = t.querySelector('button.whole');
        if (btn) btn.click();
      }
    }
    Array.prototype.forEach.call(document.querySelectorAll('.hit'), function (e) { e.classList.remove('hit'); });
    target.classList.add('hit');
    target.scrollIntoView({ block: 'start' });
  }

  // Search: every text of the run, stored outputs whole where the page
  // carries them.
  function search() {
    var input = document.getElementById('search');
    var count = document.getElementById('search-count');
    var ol = document.getElementById('results');
    var timer = 0;
    function hit(kind, step, label, text, i, len, select, ref) {
      var li = el('li');
      li.setAttribute('data-kind', kind);
      li.setAttribute('data-step', step);
      if (ref) li.setAttribute('data-ref', ref);
      var a = add(li, el('a', '', 'step ' + step + ' · ' + label));
      a.setAttribute('href', '#step-' + step);
      a.addEventListener('click', function (ev) { ev.preventDefault(); openStep(step, select); });
      li.appendChild(document.createTextNode(': …'));
      var from = Math.max(0, i - 40);
      li.appendChild(document.createTextNode(text.slice(from, i).replace(/\s+/g, ' ')));
      add(li, el('mark', '', text.slice(i, i + len)));
      li.appendChild(document.createTextNode(text.slice(i + len, i + len + 40).replace(/\s+/g, ' ') + '…'));
      return li;
    }
    function run() {
      var q = input.value;
      while (ol.firstChild) ol.removeChild(ol.firstChild);
      if (q.length < 2) { count.textContent = ''; return; }
      var needle = q.toLowerCase();
      var hits = [], stepsHit = {};
      function look(kind, step, label, text, select, ref) {
        if (!text) return;
        var i = String(text).toLowerCase().indexOf(needle);
        if (i < 0) return;
        stepsHit[step] = true;
        hits.push([kind, step, label, String(text), i, q.length, select, ref]);
      }
      D.steps.forEach(function (s) {
        s.msgs.forEach(function (m, j) {
          look('message', s.n, 'message ' + (j + 1) + ' (' + m.role + ')', D.texts[m.text], 'details.msg[data-index="' + (j + 1) + '"]');
          (m.calls || []).forEach(function (c) { look('message', s.n, 'message ' + (j + 1) + ' call ' + c.name, c.name + ' ' + c.args, 'details.msg[data-index="' + (j + 1) + '"]'); });
        });
        look('response', s.n, 'response', s.resp.text || s.resp.raw, null);
        s.resp.calls.forEach(function (c) { look('response', s.n, 'response call ' + c.name, c.name + ' ' + c.args, null); });
        s.prunes.concat(s.events).forEach(function (e) { look('event', s.n, 'event', e, null); });
        if (s.error) look('response', s.n, 'error', s.error, null);
      });
      D.outputs.forEach(function (o) {
        look('output', o.step, 'stored output ' + o.ref + ' (' + o.tool + ')', o.text, '#out-' + o.ref, o.ref);
      });
      D.findings.forEach(function (f) { look('finding', f.step, 'finding', f.path + ' ' + f.title + ' ' + f.body, null); });
      var n = Object.keys(stepsHit).length;
      count.textContent = hits.length ? (hits.length === 1 ? '1 match' : fmt(hits.length) + ' matches') + ' in ' + plural(n, 'step') + (hits.length > 200 ? '; the first 200 are listed' : '') : 'Not found.';
      hits.slice(0, 200).forEach(function (h) { ol.appendChild(hit.apply(null, h)); });
    }
    input.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(run, 120); });
    input.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') { clearTimeout(timer); run(); } });
  }

  function egress() {
    var t = document.getElementById('egress');
    var ul = document.getElementById('redactions');
    var E = D.egress;
    if (!E) {
      add(ul, el('li', '', 'The run records no egress: it was recorded by a version before egress records.'));
      t.remove();
      return;
    }
    var head = add(t, el('tr'));
    ['Host', 'Path', 'Requests', 'Failed', 'Sent', 'Received'].forEach(function (h) { add(head, el('th', '', h)); });
    E.destinations.forEach(function (d) {
      var r = add(t, el('tr'));
      [d.host, d.path, fmt(d.requests), fmt(d.failed), size(d.bytes_sent), size(d.bytes_received)].forEach(function (v) { add(r, el('td', '', v)); });
    });
    if (!E.destinations.length) t.remove();
    if (!(E.redactions || []).length) { add(ul, el('li', '', 'Nothing the run sent carried a redaction.')); return; }
    E.redactions.forEach(function (x) {
      add(ul, el('li', '', x.rule + ': ' + plural(x.secrets, 'secret') + ' replaced by placeholders, in ' + plural(x.requests, 'request')));
    });
  }

  summary();
  efficiency();
  findings();
  egress();
  chart();
  timeline();
  steps();
  search();
  if (/^#step-\d+$/.test(location.hash)) openStep(Number(location.hash.slice(6)), null);
  document.body.setAttribute('data-ready', '1');
})();
