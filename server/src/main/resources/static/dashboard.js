// The operator dashboard: polls the JSON views every few seconds and redraws in place.
// Plain JS, no build step and nothing loaded from elsewhere: the page works offline.
'use strict';

(() => {
  const REFRESH_MS = 2500;
  const TOKEN_KEY = 'blackboard.operatorToken';
  const SOURCES = {
    workers: 'operator/workers',
    blocks: 'function-blocks',
    failures: 'operator/failures?limit=25',
    running: 'operator/running?limit=25',
  };

  const view = { workers: [], blocks: [], failures: [], running: [], updatedAt: null, error: null, skewMs: 0 };
  const $ = (id) => document.getElementById(id);

  // ---- data -------------------------------------------------------------------------------

  function token() {
    return localStorage.getItem(TOKEN_KEY) || '';
  }

  async function getJson(path) {
    const headers = { Accept: 'application/json' };
    if (token()) {
      headers.Authorization = 'Bearer ' + token();
    }
    const response = await fetch(path, { headers, cache: 'no-store' });
    const date = response.headers.get('Date');
    if (date) {
      view.skewMs = Date.parse(date) - Date.now(); // "x s ago" on the server's clock
    }
    if (!response.ok) {
      let detail = response.statusText;
      try {
        detail = (await response.json()).detail || detail;
      } catch (ignored) {
        // not a problem document
      }
      const hint = response.status === 401 || response.status === 403 ? ' (check the operator token)' : '';
      throw new Error(`${path} answered ${response.status}: ${detail}${hint}`);
    }
    return response.json();
  }
  // for the page's other scripts (history.js): the same token, the same errors
  window.blackboard = Object.assign(window.blackboard || {}, { getJson });

  async function refresh() {
    if ($('dashboard').hidden) { // another page is shown (pages.js): poll nothing meanwhile
      setTimeout(refresh, REFRESH_MS);
      return;
    }
    try {
      const [workers, blocks, failures, running] = await Promise.all(
        [SOURCES.workers, SOURCES.blocks, SOURCES.failures, SOURCES.running].map(getJson));
      Object.assign(view, { workers, blocks, failures, running, updatedAt: Date.now(), error: null });
    } catch (e) {
      view.error = e.message;
    }
    render();
    setTimeout(refresh, REFRESH_MS);
  }

  // ---- formatting -------------------------------------------------------------------------

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.entries(props || {}).forEach(([key, value]) => {
      if (key === 'class') {
        node.className = value;
      } else if (key === 'data') {
        Object.assign(node.dataset, value);
      } else {
        node.setAttribute(key, value);
      }
    });
    children.flat().filter((child) => child !== null && child !== undefined && child !== false)
      .forEach((child) => node.append(child instanceof Node ? child : String(child)));
    return node;
  }

  const link = (href, text, title) => el('a', { href, title: title || '' }, text);
  const jobLink = (id) => link(`#/jobs/${id}`, shortId(id), id);
  const workerLink = (id, name) => (id ? link(`#/workers/${id}`, name || shortId(id), id) : '–');
  const badge = (text, kind, title) => el('span', { class: `badge ${kind}`, title: title || text }, text);
  const chip = (text) => el('span', { class: 'chip' }, text);

  function duration(ms) {
    if (ms === null || ms === undefined) {
      return '–';
    }
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
    return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  }

  function ago(iso) {
    return iso ? `${duration(Date.now() + view.skewMs - Date.parse(iso))} ago` : 'never';
  }

  function shortId(id) {
    return id ? id.slice(0, 8) + '…' + id.slice(-4) : '–';
  }

  function errorText(error) {
    if (error === null || error === undefined) return '';
    if (typeof error === 'string') return error;
    return error.message || JSON.stringify(error);
  }

  // ---- filters ----------------------------------------------------------------------------

  function filters() {
    return {
      text: $('filter-text').value.trim().toLowerCase(),
      state: $('filter-state').value,
      problems: $('filter-problems').checked,
    };
  }

  const matches = (text, ...fields) => !text || fields.join(' ').toLowerCase().includes(text);

  function workerShown(entry, f) {
    const w = entry.worker;
    const blocks = entry.functionBlocks.map((b) => `${b.name}@${b.version}`);
    const labels = Object.entries(w.labels || {}).map(([k, v]) => `${k}=${v}`);
    const problem = w.state !== 'ONLINE' || w.deaf || w.directive !== 'RUN';
    return (!f.state || w.state === f.state) && (!f.problems || problem)
      && matches(f.text, w.name, w.hostname || '', w.id, w.state, labels.join(' '), blocks.join(' '));
  }

  function blockShown(block, f) {
    const problem = block.unroutable || (block.oldestPendingAgeMs || 0) > 60000;
    return (!f.problems || problem) && matches(f.text, block.name, block.version, block.id);
  }

  function failureShown(failure, f) {
    return matches(f.text, failure.jobId, failure.functionBlock, failure.workerName || '', failure.workerId || '',
      failure.failureReason, errorText(failure.error), failure.correlationId || '');
  }

  // ---- rendering --------------------------------------------------------------------------

  function fill(table, rows, emptyText, columns) {
    const body = $(table).querySelector('tbody');
    body.replaceChildren(...(rows.length ? rows
      : [el('tr', { class: 'empty' }, el('td', { colspan: columns }, emptyText))]));
  }

  function tile(value, label, kind, alert) {
    return el('div', { class: `tile ${kind}${alert ? ' alert' : ''}` },
      el('div', { class: 'value' }, value), el('div', { class: 'label' }, label));
  }

  function renderTiles() {
    const count = (state) => view.workers.filter((w) => w.worker.state === state).length;
    const deaf = view.workers.filter((w) => w.worker.deaf).length;
    const sum = (field) => view.blocks.reduce((total, b) => total + b[field], 0);
    const unroutable = view.blocks.filter((b) => b.unroutable).length;
    const oldest = Math.max(0, ...view.blocks.map((b) => b.oldestPendingAgeMs || 0));
    $('tiles').replaceChildren(
      tile(count('ONLINE'), 'Workers online', 'online'),
      tile(count('UNREACHABLE'), 'Unreachable', 'unreachable', count('UNREACHABLE') > 0),
      tile(count('OFFLINE'), 'Offline', 'offline'),
      tile(deaf, 'Deaf workers', 'deaf', deaf > 0),
      tile(sum('pending'), 'Jobs pending', 'info'),
      tile(sum('scheduled'), 'Scheduled / retrying', 'info'),
      tile(sum('polled'), 'Jobs running', 'info'),
      tile(sum('parked'), 'Dead letters', 'danger', sum('parked') > 0),
      tile(duration(oldest || null), 'Oldest pending', 'info', oldest > 60000),
      tile(unroutable, 'Unroutable blocks', 'danger', unroutable > 0));
  }

  function blockRow(block) {
    const flags = [block.pure && badge('pure', 'flag'), block.idempotent && badge('idempotent', 'flag')];
    const routing = block.unroutable
      ? badge('UNROUTABLE', 'unroutable', 'PENDING jobs that no ONLINE RUN worker serving this block can take')
      : badge('ok', 'ok');
    return el('tr', { data: { id: block.id } },
      el('td', {}, el('span', { class: 'name' }, block.name), ' ', el('span', { class: 'muted' }, block.version),
        block.description ? el('div', { class: 'muted small' }, block.description) : null),
      el('td', {}, flags),
      el('td', { class: 'num' }, block.onlineWorkers),
      el('td', { class: 'num' }, block.pending),
      el('td', { class: 'num' }, block.scheduled),
      el('td', { class: 'num' }, block.polled),
      el('td', { class: `num${block.parked > 0 ? ' stale' : ''}` }, block.parked),
      el('td', { class: `num${(block.oldestPendingAgeMs || 0) > 60000 ? ' stale' : ''}` },
        duration(block.oldestPendingAgeMs)),
      el('td', {}, routing));
  }

  function workerRow(entry) {
    const w = entry.worker;
    const flags = [
      w.deaf && badge('DEAF', 'deaf', 'Pings but has not polled while jobs it could take wait'),
      w.directive !== 'RUN' && badge(w.directive, w.directive, 'Operator directive'),
    ];
    return el('tr', { data: { id: w.id, state: w.state } },
      el('td', {}, el('div', { class: 'name' }, workerLink(w.id, w.name)),
        el('div', { class: 'muted small' }, [w.hostname, w.pid && `pid ${w.pid}`, w.version && `v${w.version}`,
          w.sdkName && `${w.sdkName} ${w.sdkVersion || ''}`.trim()]
          .filter(Boolean).join(' · ') || shortId(w.id))),
      el('td', {}, badge(w.state, w.state)),
      el('td', { title: w.lastSeenAt }, ago(w.lastSeenAt),
        el('div', { class: 'muted small' }, `polled ${ago(w.lastPolledAt)}`)),
      el('td', {}, Object.entries(w.labels || {}).map(([k, v]) => chip(`${k}=${v}`))),
      el('td', {}, entry.functionBlocks.map((b) => chip(`${b.name}@${b.version}`))),
      el('td', { class: 'num' }, `${w.heldJobs} / ${w.concurrency}`),
      el('td', {}, flags));
  }

  function runningRow(job) {
    const progress = job.progressPercent == null ? el('span', { class: 'muted' }, 'no report')
      : el('span', { title: job.progressAt || '' }, `${job.progressPercent}%`,
        job.progressMessage ? el('div', { class: 'muted small' }, job.progressMessage) : null);
    return el('tr', { data: { id: job.jobId } },
      el('td', { title: job.polledAt }, ago(job.polledAt)),
      el('td', { class: 'mono' }, jobLink(job.jobId),
        el('div', { class: 'muted small' }, `attempt ${job.attempt}`)),
      el('td', {}, job.functionBlock, ' ', el('span', { class: 'muted' }, job.version)),
      el('td', {}, workerLink(job.workerId, job.workerName)),
      el('td', {}, progress),
      el('td', { title: job.deadline }, job.deadline));
  }

  function failureRow(failure) {
    return el('tr', { data: { id: failure.jobId } },
      el('td', { title: failure.pushedAt }, ago(failure.pushedAt)),
      el('td', { class: 'mono' }, jobLink(failure.jobId),
        el('div', { class: 'muted small' }, `attempt ${failure.attempt}/${failure.maxAttempts}`)),
      el('td', {}, failure.functionBlock, ' ', el('span', { class: 'muted' }, failure.version)),
      el('td', {}, workerLink(failure.workerId, failure.workerName)),
      el('td', {}, badge(failure.failureReason, 'reason')),
      el('td', { class: 'error-text' }, errorText(failure.error)));
  }

  function render() {
    const f = filters();
    const status = $('status');
    if (view.error) {
      status.className = 'status error';
      status.textContent = view.error;
    } else if (view.updatedAt) {
      status.className = 'status ok';
      status.textContent = `live · updated ${new Date(view.updatedAt).toLocaleTimeString()}`;
    }
    renderTiles();
    const blocks = view.blocks.filter((b) => blockShown(b, f));
    const workers = view.workers.filter((w) => workerShown(w, f));
    const failures = view.failures.filter((x) => failureShown(x, f));
    fill('blocks', blocks.map(blockRow), 'No function blocks match', 7);
    fill('workers', workers.map(workerRow), 'No workers match', 7);
    fill('failures', failures.map(failureRow), 'No failures', 6);
    fill('running', view.running.map(runningRow), 'No job is running', 6);
    $('running-count').textContent = `${view.running.length} shown`;
    $('blocks-count').textContent = `${blocks.length} of ${view.blocks.length}`;
    $('workers-count').textContent = `${workers.length} of ${view.workers.length}`;
    $('failures-count').textContent = `latest ${view.failures.length}`;
  }

  // shared with pages.js, which draws the other pages with the same helpers
  window.Blackboard = { el, link, jobLink, workerLink, badge, chip, duration, ago, shortId, errorText, getJson, token };

  // ---- wiring -----------------------------------------------------------------------------

  function showTokenState() {
    $('token-state').textContent = token() ? 'saved' : 'not set';
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('token').value = token();
    showTokenState();
    $('token-form').addEventListener('submit', (event) => {
      event.preventDefault();
      localStorage.setItem(TOKEN_KEY, $('token').value.trim());
      showTokenState();
    });
    ['filter-text', 'filter-state', 'filter-problems'].forEach((id) => $(id).addEventListener('input', render));
    refresh();
  });
})();
