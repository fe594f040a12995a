import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import { jsonBody } from '../assets/json-body.js';
import { adminAuth } from '../auth/admin-auth.js';
import { parseInput } from '../validation.js';
import { jobRequestSchema, parseJobId } from './job.schemas.js';
import type { JobService } from './job.service.js';

/** What the job routes need. */
export interface JobRouteDeps {
  adminToken: string | undefined;
  jobs: JobService;
  maxJsonBytes: number;
}

/** `/admin/jobs[/{id}]`, mounted under `/api/v1/can/0`; the bearer check runs first. */
export function jobRoutes(deps: JobRouteDeps): Router {
  // Strict: `/admin/jobs/` (a job id left empty) is not the list; it falls through to 404.
  const router = Router({ strict: true });
  router.use('/admin/jobs', adminAuth(deps.adminToken));
  router
    .route('/admin/jobs')
    .post(jsonBody(deps.maxJsonBytes), async (req, res) => {
      const job = await deps.jobs.start(parseInput(jobRequestSchema, req.body, 'body'));
      res.status(202).json(success(job));
    })
    .get(async (_req, res) => {
      res.json(success(await deps.jobs.list()));
    })
    .all(methodNotAllowed(['GET', 'POST']));
  router
    .route('/admin/jobs/:id')
    .get(async (req, res) => {
      res.json(success(await deps.jobs.get(parseJobId(req.params.id))));
    })
    .delete(async (req, res) => {
      res.json(success(await deps.jobs.cancel(parseJobId(req.params.id))));
    })
    .all(methodNotAllowed(['GET', 'DELETE']));
  return router;
}
