import { admin, ApiError, type Job, type JobRequest } from './api.js';
import { confirmAction } from './confirm.js';
import { announce, formatBytes, formatTime, h } from './dom.js';
import { count, jobResult } from './job-result.js';

/** How a person gets the admin token: shown on the page, before any prompt. */
function tokenHelp(): HTMLElement {
  return h(
    'details',
    { class: 'help', open: true },
    h('summary', {}, 'Jobs need the admin token'),
    h(
      'p',
      {},
      'Started with ',
      h('code', {}, 'pnpm start'),
      ', the service wrote one to ',
      h('code', {}, 'services/asset-store/data/admin-token'),
      ' and named that file in its output (the ',
      h('code', {}, 'admin_token_file'),
      ' setting). Otherwise it is the ',
      h('code', {}, 'admin_token'),
      ' setting (or the ',
      h('code', {}, 'ASSET_STORE_ADMIN_TOKEN'),
      ' environment variable); with neither, every admin endpoint answers 403. Paste the token when this page asks; it is kept for this browser tab only.',
    ),
    h(
      'p',
      {},
      'From a terminal: ',
      h(
        'code',
        {},
        'ASSET_STORE_TOKEN=$(cat services/asset-store/data/admin-token) asset-store jobs',
      ),
      ', or ',
      h('code', {}, '--token <the token>'),
      '; over HTTP: ',
      h('code', {}, 'Authorization: Bearer <the token>'),
      '.',
    ),
  );
}

/** What each job kind is called on screen. */
const KIND_LABEL: Record<string, string> = {
  verify: 'Verify',
  rebuild: 'Rebuild',
  backfill: 'Backfill',
};

/** Polling while a job runs: often enough that its bar visibly moves. */
const RUNNING_POLL_MS = 500;
/** Polling while none runs: only to notice jobs started elsewhere. */
const IDLE_POLL_MS = 2000;

/**
 * Verify and rebuild jobs (`/admin/jobs`, admin token asked once per session): start one,
 * follow its progress live (polled twice a second while one runs, every 2 s otherwise, while
 * the view is open), cancel it.
 * Returns the view and a function that stops the polling.
 */
export function jobsView(): { view: HTMLElement; stop: () => void } {
  const list = h('ul', { class: 'jobs', 'aria-label': 'Jobs' });
  const error = h('p', { class: 'error', role: 'alert' });
  const start = (body: JobRequest) => async () => {
    error.textContent = '';
    try {
      await admin.startJob(body);
      await poll();
    } catch (err) {
      error.textContent = err instanceof ApiError ? err.message : 'The asset store did not answer.';
    }
  };
  const view = h(
    'section',
    { class: 'jobs-view', 'aria-labelledby': 'jobs-title' },
    h('h2', { id: 'jobs-title' }, 'Jobs'),
    tokenHelp(),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', onclick: () => void start({ kind: 'verify' })() },
        'Verify all files',
      ),
      h(
        'button',
        { type: 'button', onclick: () => void start({ kind: 'rebuild', mode: 'soft' })() },
        'Rebuild index',
      ),
      h(
        'button',
        {
          type: 'button',
          onclick: () =>
            void confirmAction(
              'Hard rebuild?',
              'A hard rebuild empties the index and builds it again from the stored files: while it runs, list and search show only what it has reached. Tags and descriptions are kept (they live on the files).',
              'Start hard rebuild',
            ).then((yes) => (yes ? start({ kind: 'rebuild', mode: 'hard' })() : undefined)),
        },
        'Hard rebuild',
      ),
    ),
    error,
    list,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  async function poll(): Promise<void> {
    clearTimeout(timer);
    let running = false;
    try {
      const jobs = await admin.jobs();
      list.replaceChildren(...jobs.map(jobItem));
      running = jobs.some((job) => job.status === 'running');
      if (jobs.length === 0) list.append(h('li', {}, 'No jobs yet.'));
    } catch (err) {
      error.textContent = err instanceof ApiError ? err.message : 'The asset store did not answer.';
    }
    if (!stopped) timer = setTimeout(() => void poll(), running ? RUNNING_POLL_MS : IDLE_POLL_MS);
  }
  function jobItem(job: Job): HTMLElement {
    const total = job.bytes_total || job.total || 0;
    const done = job.bytes_total ? job.bytes_done : job.done;
    const label = KIND_LABEL[job.kind] ?? job.kind;
    const parts = [
      job.total ? `${job.done.toLocaleString()} of ${count(job.total, 'file')}` : undefined,
      job.bytes_total
        ? `${formatBytes(job.bytes_done)} of ${formatBytes(job.bytes_total)}`
        : undefined,
      job.status === 'running' && job.eta_s !== null
        ? `about ${Math.ceil(job.eta_s)} s left`
        : undefined,
    ].filter(Boolean);
    return h(
      'li',
      {
        'data-job': job.id,
        'data-kind': job.kind,
        'data-status': job.status,
        'data-done': job.done,
      },
      h('strong', {}, `${label} `),
      h('span', { class: 'status' }, job.status),
      h('progress', {
        max: total || 1,
        value: job.status === 'done' ? total || 1 : done,
        'aria-label': `${label} progress`,
      }),
      h('span', { class: 'detail' }, parts.join(', ')),
      h('span', { class: 'when' }, `started ${formatTime(job.started_at)}`),
      jobResult(job),
      job.status === 'running'
        ? h(
            'button',
            {
              type: 'button',
              onclick: () => {
                admin
                  .cancelJob(job.id)
                  .then(() => poll())
                  .catch((err: unknown) =>
                    announce(err instanceof ApiError ? err.message : 'Cancel failed.'),
                  );
              },
            },
            `Cancel ${label.toLowerCase()}`,
          )
        : null,
    );
  }
  void poll();
  return {
    view,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
