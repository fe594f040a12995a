import type { Command } from 'commander';
import type { EventType, Webhook, WebhookDelivery } from '../client/index.js';
import { localTime, textTable } from './asset-table.js';
import { UsageError } from './cli-errors.js';
import type { CommandContext } from './command-context.js';
import { watchChanges } from './watch.js';
import { EVENT_TYPES } from '../changes/event-types.js';

function webhookTable(hooks: readonly Webhook[]): string {
  return textTable(
    ['ID', 'CREATED', 'TYPES', 'URL'],
    hooks.map((h) => [h.id, localTime(h.created_at), h.types?.join(',') ?? 'all', h.url]),
  );
}

function deliveryTable(attempts: readonly WebhookDelivery[]): string {
  return textTable(
    ['AT', 'EVENT', 'RESULT', 'TOOK'],
    attempts.map((a) => [
      localTime(a.at),
      a.event_id,
      [a.status === null ? '' : String(a.status), a.error ?? ''].filter(Boolean).join(' '),
      `${a.duration_ms} ms`,
    ]),
  );
}

/** `--events a,b c`: each a known type; none given means every type. */
function eventTypes(given: string[] | undefined): EventType[] | undefined {
  if (given === undefined) return undefined;
  const types = given
    .flatMap((g) => g.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  for (const type of types) {
    if (!EVENT_TYPES.includes(type as EventType)) {
      throw new UsageError(`--events: unknown type ${type} (one of ${EVENT_TYPES.join(', ')})`);
    }
  }
  if (types.length === 0) throw new UsageError('--events: name at least one type');
  return types as EventType[];
}

/** `watch` (the live change stream) and `webhooks add|ls|rm|deliveries` (admin token). */
export function addEventCommands(program: Command, ctx: CommandContext): void {
  program
    .command('watch')
    .description(
      'print each change as it happens, until Ctrl-C; resumes after a dropped connection',
    )
    .option('--after <cursor>', 'start after this event id (default: from now)')
    .action(async (flags: { after?: string }, cmd: Command) => {
      await watchChanges(ctx.client(cmd), ctx.io, { json: ctx.json(cmd), after: flags.after });
    });

  const webhooks = program
    .command('webhooks')
    .description('add, list and remove webhooks; show their deliveries (admin token)');
  webhooks
    .command('add')
    .description('subscribe a URL to the changes; prints its signing secret (shown this once)')
    .argument('<url>', 'where each event is POSTed')
    .option(
      '--events <types...>',
      `only these types (comma- or space-separated): ${EVENT_TYPES.join(', ')}`,
    )
    .action(async (url: string, flags: { events?: string[] }, cmd: Command) => {
      const created = await ctx.client(cmd).api.createWebhook(url, eventTypes(flags.events));
      if (ctx.json(cmd)) {
        ctx.io.stdout(`${JSON.stringify(created)}\n`);
        return;
      }
      ctx.io.stdout(`${webhookTable([created])}SECRET  ${created.secret}\n`);
      ctx.io.stderr('asset-store: keep the secret: the store shows it only this once\n');
    });
  webhooks
    .command('ls')
    .description('list the webhooks')
    .action(async (_flags: unknown, cmd: Command) => {
      const hooks = await ctx.client(cmd).api.webhooks();
      if (ctx.json(cmd)) for (const h of hooks) ctx.io.stdout(`${JSON.stringify(h)}\n`);
      else ctx.io.stdout(webhookTable(hooks));
    });
  webhooks
    .command('rm')
    .description('delete a webhook, its queue and its log')
    .argument('<id>', 'the webhook id')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      await ctx.client(cmd).api.deleteWebhook(id);
      ctx.io.stdout(
        ctx.json(cmd) ? `${JSON.stringify({ id, status: 'deleted' })}\n` : `deleted ${id}\n`,
      );
    });
  webhooks
    .command('deliveries')
    .description("a webhook's recent delivery attempts, newest first")
    .argument('<id>', 'the webhook id')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const attempts = await ctx.client(cmd).api.webhookDeliveries(id);
      if (ctx.json(cmd)) for (const a of attempts) ctx.io.stdout(`${JSON.stringify(a)}\n`);
      else ctx.io.stdout(deliveryTable(attempts));
    });
}
