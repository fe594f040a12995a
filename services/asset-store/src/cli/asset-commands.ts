import { Option, type Command } from 'commander';
import { assetTable } from './asset-table.js';
import { CliError, UsageError } from './cli-errors.js';
import type { CommandContext } from './command-context.js';
import { downloadAsset } from './download.js';
import { listOptions, queryOf, searchOptions, type QueryFlags } from './query-options.js';
import type { Asset, AssetPage } from '../client/index.js';
import type { StoreClient } from './store-client.js';

interface TagFlags {
  add?: boolean;
  remove?: boolean;
}

/** `ls`, `search`, `get`, `meta`, `tag`, `trash` and `restore`. */
export function addAssetCommands(program: Command, ctx: CommandContext): void {
  const showPage = async (cmd: Command, endpoint: 'list' | 'search', flags: QueryFlags) => {
    const c = ctx.client(cmd);
    const query = queryOf(flags);
    const json = ctx.json(cmd);
    if (flags.all) query.limit ??= 1000;
    const items: Asset[] = [];
    let page: AssetPage;
    const cursor = new PageCursor(query.sort === 'taken', query.order === 'asc');
    for (;;) {
      page = await (endpoint === 'list' ? c.api.list(query) : c.api.search(query));
      if (json) for (const item of page.items) ctx.io.stdout(`${JSON.stringify(item)}\n`);
      else items.push(...page.items);
      const last = page.items.at(-1);
      if (!flags.all || !last || page.items.length < page.pagination.limit) break;
      Object.assign(query, cursor.after(page.items));
    }
    if (!json) {
      ctx.io.stdout(assetTable(items));
      ctx.io.stderr(`${items.length} shown of ${page.pagination.total}\n`);
    }
  };
  listOptions(program.command('ls').description('list assets, newest first')).action(
    (flags: QueryFlags, cmd: Command) => showPage(cmd, 'list', flags),
  );
  searchOptions(
    program.command('search').description('search assets; filters combine with AND'),
  ).action((flags: QueryFlags, cmd: Command) => showPage(cmd, 'search', flags));

  program
    .command('get')
    .description('download an asset, continuing a partial download; checks Repr-Digest')
    .argument('<hash>', 'hash, or a unique prefix of at least 8 hex characters')
    .option('-o, --output <file>', 'where to write it (`-` for stdout; default: its file name)')
    .option('--force', 'replace a file already there (default: leave it, exit 1)')
    .action(async (hash: string, flags: { output?: string; force?: boolean }, cmd: Command) => {
      const c = ctx.client(cmd);
      const result = await downloadAsset({
        client: c,
        hash: await resolveHash(c, hash),
        output: flags.output,
        force: flags.force,
        stdout: ctx.io.binaryOut,
        signal: ctx.io.stop,
      });
      if (ctx.json(cmd)) ctx.io.stdout(`${JSON.stringify(result)}\n`);
      else if (result.path !== '-') {
        const from = result.resumed_from ? `, resumed at byte ${result.resumed_from}` : '';
        ctx.io.stderr(
          `saved ${result.path} (${result.bytes} bytes${from}; digest ${result.digest})\n`,
        );
      }
      if (result.digest === 'unchecked') {
        ctx.io.stderr('asset-store: the store sent no Repr-Digest; the content was not checked\n');
      }
    });

  program
    .command('meta')
    .description("print an asset's metadata record")
    .argument('<hash>', 'hash or unique prefix')
    .action(async (hash: string, _flags: unknown, cmd: Command) => {
      const c = ctx.client(cmd);
      ctx.print(cmd, await c.api.meta(await resolveHash(c, hash)));
    });

  program
    .command('tag')
    .description("replace an asset's tags (or --add / --remove some)")
    .argument('<hash>', 'hash or unique prefix')
    .argument('[tags...]', 'the tags (each may be comma-separated)')
    .addOption(new Option('--add', 'add the tags to those it has').conflicts('remove'))
    .option('--remove', 'remove the tags from those it has')
    .action(async (hash: string, given: string[], flags: TagFlags, cmd: Command) => {
      const c = ctx.client(cmd);
      const full = await resolveHash(c, hash);
      const named = given
        .flatMap((t) => t.split(','))
        .map((t) => t.trim())
        .filter(Boolean);
      let tags = named;
      if (flags.add || flags.remove) {
        const current = (await c.api.meta(full)).tags;
        tags = flags.add
          ? [...current, ...named.filter((t) => !current.includes(t))]
          : current.filter((t) => !named.includes(t));
      }
      await c.api.update(full, { tags });
      ctx.print(cmd, { hash: full, tags });
    });

  for (const [name, done] of [
    ['trash', 'trashed'],
    ['restore', 'restored'],
  ] as const) {
    program
      .command(name)
      .description(name === 'trash' ? 'move assets to the trash' : 'take assets out of the trash')
      .argument('<hash...>', 'hashes or unique prefixes')
      .action(async (hashes: string[], _flags: unknown, cmd: Command) => {
        const c = ctx.client(cmd);
        for (const given of hashes) {
          const hash = await resolveHash(c, given);
          await c.api[name](hash);
          ctx.io.stdout(
            ctx.json(cmd) ? `${JSON.stringify({ hash, status: done })}\n` : `${done} ${hash}\n`,
          );
        }
      });
  }
}

/** A full hash as given, or the one asset whose hash starts with the given prefix. */
async function resolveHash(client: StoreClient, given: string): Promise<string> {
  if (/^[0-9a-fA-F]{64}$/.test(given)) return given.toLowerCase();
  if (!/^[0-9a-fA-F]{8,63}$/.test(given)) {
    throw new UsageError(`${given}: expected a hash (64 hex characters) or a prefix of 8 or more`);
  }
  const page = await client.api.search({
    hash: given,
    limit: 2,
    include_trashed: 'true',
    include_corrupted: 'true',
  });
  const [first, second] = page.items;
  if (!first) throw new CliError(`${given}: no asset has such a hash`);
  if (second) throw new CliError(`${given}: several assets start so; give more characters`);
  return first.hash;
}

/**
 * Where `--all`'s next page starts. By timestamp (unique) the last item's timestamp: it never
 * skips or repeats an item while others are added. By date taken (`--sort taken`, shared by
 * several assets) the last item's key widened by one, with `offset` counting the items of
 * that key already shown, over as many pages as the key spans (the API's rule).
 */
class PageCursor {
  #key: number | undefined;
  #shown = 0;

  constructor(
    private readonly taken: boolean,
    private readonly ascending: boolean,
  ) {}

  after(items: readonly Asset[]): { offset_time: number; offset: number | undefined } {
    const last = items.at(-1)!;
    if (!this.taken) return { offset_time: last.timestamp, offset: undefined };
    const keyOf = (a: Asset) => a.taken_at ?? a.timestamp;
    const key = keyOf(last);
    const onPage = items.filter((a) => keyOf(a) === key).length;
    this.#shown = (this.#key === key ? this.#shown : 0) + onPage;
    this.#key = key;
    return { offset_time: this.ascending ? key - 1 : key + 1, offset: this.#shown };
  }
}
