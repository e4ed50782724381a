// The dashboard's history charts: GET operator/history drawn with uPlot (served from vendor/uplot,
// nothing loaded from elsewhere). The range is the URL's ?range= (1h, 24h, 7d), so a chart can be
// pasted in a chat; the hash is left to the page's routes. Fetches go through dashboard.js's
// getJson, which sends the operator token.
'use strict';

(() => {
  const RANGES = ['1h', '24h', '7d'];
  const REFRESH_MS = 30000;
  const COLORS = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777',
    '#4b5563', '#65a30d'];
  const BUCKET_NAMES = { 60: 'minute', 900: '15 minutes', 7200: '2 hours' };

  const state = { range: rangeOfUrl(), charts: {}, data: null, timer: null };
  // what the page drew, for the browser test and for curious operators in the console
  window.blackboardHistory = state;
  const $ = (id) => document.getElementById(id);

  function rangeOfUrl() {
    const range = new URLSearchParams(window.location.search).get('range');
    return RANGES.includes(range) ? range : '1h';
  }

  // ---- data -------------------------------------------------------------------------------

  async function load() {
    clearTimeout(state.timer);
    const range = state.range;
    try {
      const data = await window.blackboard.getJson(`operator/history?range=${encodeURIComponent(range)}`);
      if (range === state.range) {
        state.data = data;
        render(data);
        $('history-state').textContent = `${data.buckets.length} buckets of ${BUCKET_NAMES[data.bucketSeconds]
          || `${data.bucketSeconds} s`} · updated ${new Date().toLocaleTimeString()}`;
        $('history-state').className = 'muted small';
      }
    } catch (e) {
      $('history-state').textContent = e.message;
      $('history-state').className = 'small error-text';
    }
    state.timer = setTimeout(load, REFRESH_MS);
  }

  function choose(range, push) {
    state.range = range;
    if (push) {
      const url = new URL(window.location.href);
      url.searchParams.set('range', range);
      window.history.pushState(window.history.state, '', url);
    }
    document.querySelectorAll('#history-range button').forEach((button) => {
      button.setAttribute('aria-pressed', String(button.dataset.range === range));
    });
    load();
  }

  // ---- charts -----------------------------------------------------------------------------

  function ms(value) {
    if (value === null || value === undefined) return '–';
    if (value < 1000) return `${Math.round(value)} ms`;
    if (value < 60000) return `${(value / 1000).toFixed(value < 10000 ? 1 : 0)} s`;
    return `${(value / 60000).toFixed(1)} min`;
  }

  function series(label, color, extra) {
    return Object.assign({ label, stroke: color, width: 2, spanGaps: false, points: { size: 4 } }, extra || {});
  }

  /**
   * A gauge sampled once a minute (depth, workers): its points always shown, joined across the
   * minutes without a sample (caught up after a restart), so a lone sample is still seen.
   */
  function gauge(label, color, extra) {
    return series(label, color, Object.assign({ spanGaps: true, points: { show: true, size: 5 } }, extra || {}));
  }

  /** uPlot's options for a chart of these series, sized to its box. */
  function options(box, list, yValues) {
    return {
      width: Math.max(280, box.clientWidth),
      height: 200,
      series: [{}].concat(list),
      axes: [{ stroke: '#6b7280' }, { stroke: '#6b7280', size: 60, values: yValues }],
      // counts and durations: the axis starts at 0, so a small change does not look like a cliff
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
    };
  }

  /** Draws a chart, or gives it new data: a new uPlot only when its series changed. */
  function draw(key, list, columns, yValues) {
    const box = $(`chart-${key}`);
    const labels = list.map((s) => s.label).join('\n');
    const existing = state.charts[key];
    if (existing && existing.labels === labels) {
      existing.setData(columns);
      return;
    }
    if (existing) {
      existing.destroy();
    }
    box.replaceChildren();
    const chart = new window.uPlot(options(box, list, yValues), columns, box);
    chart.labels = labels;
    state.charts[key] = chart;
  }

  function render(data) {
    const x = data.buckets.map((at) => Date.parse(at) / 1000);
    const per = BUCKET_NAMES[data.bucketSeconds] || `${data.bucketSeconds} s`;
    $('history-jobs-title').textContent = `Jobs created and ended, per ${per}`;
    draw('jobs', [series('created', COLORS[0]), series('succeeded', COLORS[1]), series('failed', COLORS[2]),
      series('cancelled', COLORS[8])],
    [x, data.jobs.created, data.jobs.succeeded, data.jobs.failed, data.jobs.cancelled]);

    const depth = [];
    const depthColumns = [x];
    data.queueDepth.forEach((block, i) => {
      const color = COLORS[i % COLORS.length];
      depth.push(gauge(`${block.functionBlock} PENDING`, color),
        gauge(`${block.functionBlock} POLLED`, color, { dash: [6, 4], width: 1.5 }));
      depthColumns.push(block.pending, block.polled);
    });
    draw('depth', depth, depthColumns);
    $('history-depth-empty').hidden = data.queueDepth.length > 0;

    const latency = (v) => v.map(ms);
    draw('latency', [series('claim p50', COLORS[0]), series('claim p95', COLORS[5]), series('claim p99', COLORS[3]),
      series('run p50', COLORS[1], { dash: [6, 4] }), series('run p95', COLORS[6], { dash: [6, 4] }),
      series('run p99', COLORS[4], { dash: [6, 4] })],
    [x, data.claimLatencyMs.p50, data.claimLatencyMs.p95, data.claimLatencyMs.p99,
      data.runTimeMs.p50, data.runTimeMs.p95, data.runTimeMs.p99], (u, values) => latency(values));

    draw('workers', [gauge('ONLINE', COLORS[1]), gauge('UNREACHABLE', COLORS[6]), gauge('OFFLINE', COLORS[8])],
      [x, data.workers.online, data.workers.unreachable, data.workers.offline]);
  }

  function resize() {
    Object.entries(state.charts).forEach(([key, chart]) => {
      chart.setSize({ width: Math.max(280, $(`chart-${key}`).clientWidth), height: 200 });
    });
  }

  // ---- wiring -----------------------------------------------------------------------------

  document.addEventListener('DOMContentLoaded', () => {
    document.querySelectorAll('#history-range button').forEach((button) => {
      button.addEventListener('click', () => choose(button.dataset.range, true));
    });
    // back and forward through ranges; hash changes (the page's routes) keep the range
    window.addEventListener('popstate', () => {
      if (rangeOfUrl() !== state.range) {
        choose(rangeOfUrl(), false);
      }
    });
    $('token-form').addEventListener('submit', () => setTimeout(load, 0));
    window.addEventListener('resize', resize);
    choose(state.range, false);
  });
})();
