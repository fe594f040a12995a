import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import { jsonBody } from '../assets/json-body.js';
import { adminAuth } from '../auth/admin-auth.js';
import { assetErrors } from '../errors.js';
import { parseInput } from '../validation.js';
import { createWebhookBody, webhookId } from './webhook.schemas.js';
import type { WebhookService } from './webhook.service.js';

/** Room for a URL and every type. */
const BODY_BYTES = 16 * 1024;

function parseId(value: string | undefined): string {
  const parsed = webhookId.safeParse(value);
  if (!parsed.success) throw assetErrors.badParameter('id', 'a webhook id');
  return parsed.data;
}

/**
 * `/admin/webhooks[/{id}[/deliveries]]`, mounted under `/api/v1/can/0`; the bearer check
 * runs before anything else.
 */
export function webhookRoutes(deps: {
  adminToken: string | undefined;
  webhooks: WebhookService;
}): Router {
  const router = Router();
  router.use('/admin/webhooks', adminAuth(deps.adminToken));
  router
    .route('/admin/webhooks')
    .post(jsonBody(BODY_BYTES), async (req, res) => {
      const created = await deps.webhooks.create(parseInput(createWebhookBody, req.body, 'body'));
      res.status(201).json(success(created));
    })
    .get(async (_req, res) => {
      res.json(success(await deps.webhooks.list()));
    })
    .all(methodNotAllowed(['GET', 'HEAD', 'POST']));
  router
    .route('/admin/webhooks/:id')
    .delete(async (req, res) => {
      await deps.webhooks.remove(parseId(req.params.id));
      res.json(success('deleted'));
    })
    .all(methodNotAllowed(['DELETE']));
  router
    .route('/admin/webhooks/:id/deliveries')
    .get(async (req, res) => {
      res.json(success(await deps.webhooks.deliveries(parseId(req.params.id))));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
