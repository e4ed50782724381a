// The console's pages beside the dashboard, each at a URL an operator can paste in a chat:
//   #/jobs/<id>                 one job, whole, with its audit trail as a timeline
//   #/jobs?correlationId=<cid>  every job of one workflow run
//   #/workers/<id>              one worker: history, blocks, jobs, and the operator's actions
//   #/search?q=<text>           jobs and workers matching the text (GET /operator/search)
//   #/ (or no hash)             the dashboard (dashboard.js)
// Plain JS on the native endpoints; the helpers are dashboard.js's (window.Blackboard).
'use strict';

(() => {
  const B = window.Blackboard;
  const { el, badge, chip, ago, shortId, errorText, getJson, jobLink, workerLink } = B;
  const $ = (id) => document.getElementById(id);
  let shown = 0; // the route drawn last: an answer for an older one is dropped
  let flash = null; // what the last action did, shown once on the page it redraws

  // ---- routing ------------------------------------------------------------------------------

  const ROUTES = [
    [/^\/jobs\/([^/]+)$/, (m) => jobPage(m[1])],
    [/^\/jobs$/, (m, params) => correlationPage(params.get('correlationId') || '')],
    [/^\/workers\/([^/]+)$/, (m) => workerPage(m[1])],
    [/^\/search$/, (m, params) => searchPage(params.get('q') || '')],
  ];

  function route() {
    const hash = location.hash.replace(/^#/, '') || '/';
    const [path, query] = hash.split('?', 2);
    const params = new URLSearchParams(query || '');
    $('search').value = path === '/search' ? params.get('q') || '' : '';
    if (path === '/' || path === '') {
      $('page').hidden = true;
      $('dashboard').hidden = false;
      // charts drawn while the dashboard was hidden (a pasted page URL) take their width now
      window.dispatchEvent(new Event('resize'));
      document.title = 'Blackboard · operator dashboard';
      return;
    }
    $('dashboard').hidden = true;
    $('page').hidden = false;
    const generation = ++shown;
    const found = ROUTES.map(([pattern, draw]) => [pattern.exec(path), draw]).find(([m]) => m);
    const drawing = Promise.resolve().then(() => (found ? found[1](found[0].map(decodeURIComponent), params)
      : page(`No page at #${hash}`, el('p', {}, 'Back to the ', el('a', { href: '#/' }, 'dashboard')))));
    drawing.catch((e) => page('Could not load the page', problem(e.message)))
      .then((node) => {
        if (generation === shown) {
          $('page').replaceChildren(node);
          window.scrollTo(0, 0);
        }
      });
  }

  // ---- pieces -------------------------------------------------------------------------------

  function page(title, ...content) {
    document.title = `Blackboard · ${title}`;
    const note = flash;
    flash = null;
    return el('div', { class: 'page' }, el('p', { class: 'crumbs' }, el('a', { href: '#/' }, '← dashboard')),
      el('h2', { class: 'page-title' }, title), note, ...content);
  }

  const problem = (text) => el('div', { class: 'problem', role: 'alert' }, text);
  const section = (title, ...content) => el('section', { class: 'card' }, el('h3', {}, title), ...content);
  const correlationLink = (cid) => (cid ? el('a', { href: `#/jobs?correlationId=${encodeURIComponent(cid)}` }, cid)
    : '–');
  const searchLink = (text) => el('a', { href: `#/search?q=${encodeURIComponent(text)}` }, text);

  function when(iso) {
    return iso ? el('span', { title: iso }, `${iso.replace('T', ' ').replace(/\.\d+/, '')} · ${ago(iso)}`) : '–';
  }

  function json(value) {
    return value === null || value === undefined ? el('p', { class: 'muted' }, 'none')
      : el('pre', { class: 'json' }, JSON.stringify(value, null, 2));
  }

  /** A definition list of [label, value] pairs, leaving out the empty ones. */
  function facts(pairs) {
    const given = (value) => value !== null && value !== undefined && value !== ''
      && !(Array.isArray(value) && !value.some(Boolean));
    return el('dl', { class: 'facts' }, pairs.filter(([, value]) => given(value))
      .flatMap(([label, value]) => [el('dt', {}, label), el('dd', {}, value)]));
  }

  function table(id, headers, rows, emptyText) {
    return el('table', { id }, el('thead', {}, el('tr', {}, headers.map((h) => el('th', {}, h)))),
      el('tbody', {}, rows.length ? rows
        : el('tr', { class: 'empty' }, el('td', { colspan: headers.length }, emptyText))));
  }

  function outcome(job) {
    return [badge(job.status, `status ${job.status}`), job.outcome && badge(job.outcome, `outcome ${job.outcome}`),
      job.failureReason && badge(job.failureReason, 'reason')];
  }

  /** Settles to the answer, or to the error's message for that part of the page to show. */
  const attempt = (promise) => promise.then((value) => ({ value }), (e) => ({ error: e.message }));

  // ---- the job page -------------------------------------------------------------------------

  async function jobPage(id) {
    const job = await getJson(`blackboard/jobs/${encodeURIComponent(id)}`);
    const [events, block, worker] = await Promise.all([
      attempt(getJson(`blackboard/jobs/${job.id}/events?limit=1000`)),
      attempt(getJson(`function-blocks/${job.functionBlockId}`)),
      job.workerId ? attempt(getJson(`workers/${job.workerId}`)) : Promise.resolve({})]);
    return page(`Job ${job.id}`,
      el('div', { class: 'badges' }, outcome(job), job.scheduled && badge('scheduled', 'flag')),
      section('Job', jobFacts(job, block.value, worker.value)),
      el('div', { class: 'columns' }, section('Payload', json(job.payload)), section('Result', json(job.result))),
      job.error !== null ? section('Error', el('div', { class: 'error-text' }, json(job.error))) : null,
      job.acquires !== null || job.dbUpdates !== null
        ? el('div', { class: 'columns' }, section('Acquires', json(job.acquires)),
          section('Database updates', json(job.dbUpdates))) : null,
      section('Errors, every attempt', errorsTable(job.errors || [])),
      section('Timeline', events.error ? problem(events.error) : timeline(events.value),
        !events.error && events.value.length === 1000
          ? el('p', { class: 'muted small' }, 'The first 1,000 events: GET /blackboard/jobs/{id}/events pages on '
            + '(its Link header).') : null));
  }

  function jobFacts(job, block, worker) {
    const blockName = block ? [el('span', { class: 'name' }, `${block.name}@${block.version}`), ' ',
      block.pure && badge('pure', 'flag'), block.idempotent && badge('idempotent', 'flag')] : shortId(job.functionBlockId);
    const progress = job.progressPercent == null ? null
      : `${job.progressPercent}%${job.progressMessage ? ' ' + job.progressMessage : ''} (${ago(job.progressAt)})`;
    return facts([
      ['Id', el('span', { class: 'mono' }, job.id)], ['Function block', el('span', {}, blockName)],
      ['Type', job.type], ['Attempt', `${job.attempt} of ${job.maxAttempts}`],
      ['Worker', job.workerId ? workerLink(job.workerId, worker && worker.name) : null],
      ['Correlation id', job.correlationId ? correlationLink(job.correlationId) : null],
      ['Idempotency key', job.idempotencyKey], ['Priority', job.priority],
      ['Selector', Object.entries(job.selector || {}).map(([k, v]) => chip(`${k}=${v}`))],
      ['Created', when(job.createdAt)], ['Run at', job.runAt ? when(job.runAt) : null],
      ['Claimed', job.polledAt ? when(job.polledAt) : null], ['Deadline', job.deadline ? when(job.deadline) : null],
      ['Pushed', job.pushedAt ? when(job.pushedAt) : null], ['Progress', progress],
      ['Execution timeout', job.executionTimeoutMs == null ? null : `${job.executionTimeoutMs} ms`],
      ['Retry policy', job.retryPolicy ? el('code', {}, JSON.stringify(job.retryPolicy)) : null]]);
  }

  function errorsTable(errors) {
    return table('job-errors', ['Attempt', 'Worker', 'Error', 'At'], errors.map((e) => el('tr', {},
      el('td', {}, e.attempt), el('td', {}, workerLink(e.workerId)),
      el('td', { class: 'error-text' }, errorText(e.error)), el('td', {}, when(e.at)))), 'No failure reported');
  }

  function timeline(events) {
    return el('ol', { id: 'timeline', class: 'timeline' }, events.map((e) => el('li', { data: { kind: e.kind } },
      el('span', { class: 'at' }, when(e.at)), badge(e.kind, `event ${e.kind}`),
      el('span', {}, `attempt ${e.attempt} · ${e.actor}`), e.workerId ? [' · ', workerLink(e.workerId)] : null,
      e.detail ? el('div', { class: 'muted small' }, e.detail) : null)));
  }

  // ---- a workflow run: the jobs of one correlation id ---------------------------------------

  async function correlationPage(correlationId) {
    const [list, blocks] = await Promise.all([
      getJson(`blackboard/jobs?correlationId=${encodeURIComponent(correlationId)}&limit=1000`),
      attempt(getJson('function-blocks'))]);
    const names = new Map((blocks.value || []).map((b) => [b.id, `${b.name}@${b.version}`]));
    return page(`Jobs of correlation id ${correlationId}`,
      el('p', { class: 'muted' }, `${list.jobs.length} job(s) in creation order`,
        list.next ? ' (the first 1000)' : ''),
      jobsTable('correlation-jobs', list.jobs, names, 'No job has this correlation id'));
  }

  function jobsTable(id, jobs, names, emptyText) {
    return table(id, ['Job', 'Function block', 'Type', 'Status', 'Attempt', 'Worker', 'Created', 'Ended'],
      jobs.map((j) => el('tr', { data: { id: j.id } },
        el('td', { class: 'mono' }, jobLink(j.id)),
        el('td', {}, names.get(j.functionBlockId) || shortId(j.functionBlockId)), el('td', {}, j.type),
        el('td', {}, outcome(j)), el('td', { class: 'num' }, `${j.attempt} / ${j.maxAttempts}`),
        el('td', {}, workerLink(j.workerId)), el('td', {}, when(j.createdAt)), el('td', {}, when(j.pushedAt)))),
      emptyText);
  }

  // ---- the worker page ----------------------------------------------------------------------

  async function workerPage(id) {
    const worker = await getJson(`workers/${encodeURIComponent(id)}`);
    const base = `workers/${worker.id}`;
    const [events, blocks, held, recent] = await Promise.all([attempt(allEvents(base)),
      attempt(getJson(`${base}/function-blocks`)), attempt(getJson(`${base}/jobs?status=polled&limit=100`)),
      attempt(getJson(`${base}/jobs?limit=25`))]);
    const names = new Map((blocks.value || []).map((b) => [b.id, `${b.name}@${b.version}`]));
    const part = (answer, draw) => (answer.error ? problem(answer.error) : draw(answer.value));
    return page(`Worker ${worker.name}`,
      el('div', { class: 'badges' }, badge(worker.state, worker.state), badge(worker.directive, worker.directive),
        worker.deaf && badge('DEAF', 'deaf'), worker.deletedAt && badge('DELETED', 'reason')),
      section('Worker', workerFacts(worker)),
      section('Operator actions', actions(worker)),
      section('Function blocks', part(blocks, blocksTable)),
      section('Held jobs', part(held, (jobs) => jobsTable('held-jobs', jobs, names, 'Holds no job'))),
      section('Recent jobs', part(recent, (jobs) => jobsTable('recent-jobs', jobs, names, 'No job yet'))),
      section('State history, newest first', part(events, historyTable)));
  }

  /** Every event of the worker (oldest first, paged by cursor), at most ten pages. */
  async function allEvents(base) {
    let events = [];
    let after = null;
    for (let n = 0; n < 10; n++) {
      const answer = await getJson(`${base}/events?limit=1000${after ? '&after=' + encodeURIComponent(after) : ''}`);
      events = events.concat(answer.events);
      after = answer.next;
      if (!after) break;
    }
    return events;
  }

  function workerFacts(w) {
    return facts([
      ['Id', el('span', { class: 'mono' }, w.id)], ['Host', [w.hostname, w.ip].filter(Boolean).join(' · ')],
      ['Process', w.pid ? `pid ${w.pid}` : null], ['Version', w.version],
      ['SDK', w.sdkName ? `${w.sdkName} ${w.sdkVersion || ''}` : null],
      ['Labels', Object.entries(w.labels || {}).map(([k, v]) => el('span', { class: 'chip' }, searchLink(`${k}=${v}`)))],
      ['Held jobs', `${w.heldJobs} / ${w.concurrency}`], ['Registered', when(w.registeredAt)],
      ['Last seen', when(w.lastSeenAt)], ['Last polled', when(w.lastPolledAt)],
      ['In this state since', when(w.stateChangedAt)], ['Deleted', w.deletedAt ? when(w.deletedAt) : null]]);
  }

  function blocksTable(blocks) {
    return table('worker-blocks', ['Function block', 'Flags', 'Description'], blocks.map((b) => el('tr', {},
      el('td', {}, el('span', { class: 'name' }, b.name), ' ', el('span', { class: 'muted' }, b.version)),
      el('td', {}, b.pure && badge('pure', 'flag'), b.idempotent && badge('idempotent', 'flag')),
      el('td', { class: 'muted' }, b.description || ''))), 'Serves no function block');
  }

  function historyTable(events) {
    return table('worker-history', ['At', 'Event', 'State', 'Directive', 'Actor', 'Detail'],
      events.slice().reverse().map((e) => el('tr', { data: { kind: e.kind } },
        el('td', {}, when(e.at)), el('td', {}, badge(e.kind, `event ${e.kind}`)),
        el('td', {}, e.fromState ? `${e.fromState} → ${e.state}` : e.state),
        el('td', {}, e.fromDirective ? `${e.fromDirective} → ${e.directive}` : e.directive),
        el('td', {}, e.actor),
        el('td', { class: 'muted' }, e.detail || '', e.relatedWorkerId ? [' ', workerLink(e.relatedWorkerId)] : null))),
      'No event kept');
  }

  // ---- the operator's actions, each confirmed and sent with the operator token ----------------

  function actions(w) {
    const live = !w.deletedAt;
    const directive = (d) => el('button', { type: 'button', class: 'action', id: `directive-${d}`, data: { directive: d } },
      `Set ${d}`);
    const buttons = ['RUN', 'QUIET', 'TERMINATE'].map(directive);
    const remove = el('button', { type: 'button', class: 'action danger', id: 'delete-worker' }, 'Delete worker');
    buttons.concat(remove).forEach((b) => {
      if (!live || b.dataset.directive === w.directive) b.disabled = true;
    });
    buttons.forEach((b) => b.addEventListener('click', () => act(w, 'PUT', `workers/${w.id}/directive`,
      { directive: b.dataset.directive }, `Set the directive of ${w.name} to ${b.dataset.directive}?`)));
    remove.addEventListener('click', () => act(w, 'DELETE', `workers/${w.id}`, null,
      `Delete ${w.name}? Its held jobs fail with WORKER_DELETED (or are re-queued where safe).`));
    return el('div', {}, el('div', { class: 'actions' }, buttons, remove),
      el('div', { id: 'action-result', role: 'status' }),
      el('p', { class: 'muted small' }, 'Each action asks for confirmation and needs the operator token.'));
  }

  async function act(worker, method, path, body, question) {
    const result = $('action-result');
    if (!window.confirm(question)) {
      result.replaceChildren(el('span', { class: 'muted' }, 'Cancelled: nothing was changed.'));
      return;
    }
    const headers = { Accept: 'application/json' };
    if (B.token()) headers.Authorization = 'Bearer ' + B.token();
    if (body) headers['Content-Type'] = 'application/json';
    try {
      const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
      if (!response.ok) {
        const detail = await response.json().then((p) => p.detail, () => response.statusText);
        result.replaceChildren(problem(`${method} /${path} answered ${response.status}: ${detail}`));
        return;
      }
      flash = el('div', { class: 'done', role: 'status' }, `${method} /${path}: done`);
      route();
    } catch (e) {
      result.replaceChildren(problem(`${method} /${path} failed: ${e.message}`));
    }
  }

  // ---- search -------------------------------------------------------------------------------

  async function searchPage(q) {
    if (!q.trim()) {
      return page('Search', el('p', { class: 'muted' }, searchHelp));
    }
    const found = await getJson(`operator/search?q=${encodeURIComponent(q)}&limit=50`);
    const correlated = found.jobs.some((j) => j.matchedBy === 'correlationId');
    return page(`Search: ${found.query}`,
      correlated ? el('p', {}, 'All jobs of this run: ', correlationLink(found.query)) : null,
      section(`Jobs (${found.jobs.length})`, table('search-jobs',
        ['Job', 'Matched by', 'Function block', 'Status', 'Worker', 'Correlation id', 'Created'],
        found.jobs.map((j) => el('tr', { data: { id: j.id } }, el('td', { class: 'mono' }, jobLink(j.id)),
          el('td', {}, chip(j.matchedBy)), el('td', {}, `${j.functionBlock}@${j.version}`), el('td', {}, outcome(j)),
          el('td', {}, workerLink(j.workerId)), el('td', {}, correlationLink(j.correlationId)),
          el('td', {}, when(j.createdAt)))), 'No job matches')),
      section(`Workers (${found.workers.length})`, table('search-workers',
        ['Worker', 'Matched by', 'State', 'Host', 'Labels', 'Last seen'],
        found.workers.map((w) => el('tr', { data: { id: w.id } }, el('td', {}, workerLink(w.id, w.name)),
          el('td', {}, chip(w.matchedBy)),
          el('td', {}, badge(w.state, w.state), w.directive !== 'RUN' && badge(w.directive, w.directive),
            w.deletedAt && badge('DELETED', 'reason')),
          el('td', {}, w.hostname || ''), el('td', {}, Object.entries(w.labels || {}).map(([k, v]) => chip(`${k}=${v}`))),
          el('td', {}, when(w.lastSeenAt)))), 'No worker matches')));
  }

  const searchHelp = 'Search by a job or worker id, a correlation id (exact), the start of a worker name (any '
    + 'case), a label as key=value, or a failure reason such as STUCK_TIMEOUT.';

  // ---- wiring -------------------------------------------------------------------------------

  document.addEventListener('DOMContentLoaded', () => {
    $('search').title = searchHelp;
    $('search-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const q = $('search').value.trim();
      if (q) location.hash = `#/search?q=${encodeURIComponent(q)}`;
    });
    window.addEventListener('hashchange', route);
    route();
  });
})();
