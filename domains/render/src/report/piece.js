// The piece page: violation links point at their notes in the engraving, and
// the trace viewer filters events and shows one event's whole certificate.
(function () {
  const data = JSON.parse(document.getElementById('cantus-data').textContent);
  const score = document.querySelector('.score');

  function highlight(voice, onset) {
    score.querySelectorAll('g.hl').forEach(g => g.classList.remove('hl'));
    const sel = 'g.cantus-event[data-voice="' + voice + '"][data-onset="' + onset + '"]';
    const g = score.querySelector(sel);
    if (g) {
      g.classList.add('hl');
      g.scrollIntoView({ block: 'center', inline: 'center' });
    }
    return g;
  }
  window.cantusHighlight = highlight;

  document.querySelectorAll('a.finding').forEach(a => {
    a.addEventListener('click', ev => {
      ev.preventDefault();
      if (a.dataset.voice !== undefined) highlight(a.dataset.voice, a.dataset.onset);
    });
  });

  const trace = data.trace;
  const table = document.getElementById('trace-table');
  if (!trace || !table) return;
  const body = table.querySelector('tbody');
  const detail = document.getElementById('trace-detail');
  const filters = {
    status: document.getElementById('filter-status'),
    rung: document.getElementById('filter-rung'),
    voice: document.getElementById('filter-voice'),
  };
  function statusOf(e) { return e.status === 'other' ? e.name : e.status; }
  function fill(select, values) {
    [...new Set(values)].sort().forEach(v => {
      const o = document.createElement('option');
      o.value = v; o.textContent = v; select.appendChild(o);
    });
  }
  fill(filters.status, trace.events.map(statusOf));
  fill(filters.rung, trace.events.filter(e => e.rung).map(e => e.rung));
  fill(filters.voice, trace.events.map(e => e.voice_name || String(e.voice)));

  function render() {
    body.textContent = '';
    const want = { s: filters.status.value, r: filters.rung.value, v: filters.voice.value };
    trace.events.forEach((e, i) => {
      if (want.s && statusOf(e) !== want.s) return;
      if (want.r && e.rung !== want.r) return;
      if (want.v && (e.voice_name || String(e.voice)) !== want.v) return;
      const tr = document.createElement('tr');
      tr.dataset.index = i;
      const bar = e.record.location && e.record.location.bar;
      [i + 1, e.section + 1, statusOf(e) + (e.kept ? '' : ' (rolled back)'), e.rung || '',
       e.voice_name || e.voice, bar === undefined ? '' : bar, e.onset === null ? '' : e.onset]
        .forEach(c => { const td = document.createElement('td'); td.textContent = c; tr.appendChild(td); });
      tr.addEventListener('click', () => show(i, tr));
      body.appendChild(tr);
    });
    document.getElementById('trace-count').textContent = body.children.length;
  }
  function show(i, tr) {
    body.querySelectorAll('tr.selected').forEach(r => r.classList.remove('selected'));
    tr.classList.add('selected');
    const e = trace.events[i];
    const r = e.record;
    const parts = [
      ['proposal', r.proposed],
      ['verdict on the proposal', r.verdict],
      ['repairs (rungs tried)', r.steps],
      ['accepted', r.accepted],
    ];
    detail.textContent = '';
    const h = document.createElement('h3');
    h.textContent = 'Event ' + (i + 1) + ': ' + statusOf(e) + (e.rung ? ' by ' + e.rung : '') +
      ' (trace line ' + e.line + ')';
    detail.appendChild(h);
    parts.forEach(([name, value]) => {
      const h4 = document.createElement('h4'); h4.textContent = name; detail.appendChild(h4);
      const pre = document.createElement('pre');
      pre.textContent = JSON.stringify(value === undefined ? null : value, null, 2);
      detail.appendChild(pre);
    });
    if (e.kept && e.voice !== null && e.onset !== null) highlight(e.voice, e.onset);
  }
  Object.values(filters).forEach(f => f.addEventListener('change', render));
  render();
})();
