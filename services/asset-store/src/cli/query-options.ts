import { Option, type Command } from 'commander';
import { UsageError } from './cli-errors.js';
import type { SearchQuery } from '../client/index.js';

/** Options of `ls` and `search` as commander hands them over. */
export interface QueryFlags {
  limit?: string;
  offset?: string;
  offsetTime?: string;
  order?: string;
  sort?: string;
  application?: string;
  includeTrashed?: boolean;
  includeCorrupted?: boolean;
  all?: boolean;
  hash?: string;
  sha256?: string;
  startTime?: string;
  endTime?: string;
  tags?: string;
  mimeType?: string;
  user?: string;
  q?: string;
  path?: string;
}

/** Adds the list options (`GET /list`) to a command. */
export function listOptions(command: Command): Command {
  return command
    .option('--limit <n>', 'page size, 1-1000 (default 50)')
    .option('--offset <n>', 'skip this many matches')
    .option('--offset-time <time>', 'cursor: only items before (desc) or after (asc) it')
    .addOption(
      new Option('--order <order>', 'newest (desc) or oldest (asc) first').choices(['asc', 'desc']),
    )
    .option('--application <name>', 'only assets from this application')
    .option('--include-trashed', 'include trashed assets')
    .option('--include-corrupted', 'include corrupted assets')
    .option('--all', 'every page, following the timestamp cursor');
}

/** Adds the search filters (`GET /search`) on top of the list options. */
export function searchOptions(command: Command): Command {
  return listOptions(command)
    .option('--hash <prefix>', 'hash or hash prefix (hex)')
    .option('--sha256 <hex>', "the content's plain SHA-256")
    .option('--start-time <time>', 'from this time on (epoch ms or ISO 8601)')
    .option('--end-time <time>', 'up to this time (epoch ms or ISO 8601)')
    .option('--tags <tags>', 'comma-separated; every one must be present')
    .option('--mime-type <type>', 'exact MIME type, or a family: image/*')
    .option('--user <user>', 'exact user')
    .option(
      '-q, --q <text>',
      'free text: every word in the name, folder, description or a tag (any case)',
    )
    .option('--path <folder>', 'this folder (human_path) and every folder below it')
    .addOption(
      new Option(
        '--sort <key>',
        'by ingest time (timestamp) or as a timeline: the date taken, else the ingest time',
      ).choices(['timestamp', 'taken']),
    );
}

/** The query parameters the flags stand for; the store validates the values themselves. */
export function queryOf(flags: QueryFlags): SearchQuery {
  return {
    limit: flags.limit,
    offset: flags.offset,
    offset_time: time(flags.offsetTime, 'offset-time'),
    order: flags.order,
    sort: flags.sort,
    application: flags.application,
    include_trashed: flags.includeTrashed ? 'true' : undefined,
    include_corrupted: flags.includeCorrupted ? 'true' : undefined,
    hash: flags.hash,
    sha256: flags.sha256,
    start_time: time(flags.startTime, 'start-time'),
    end_time: time(flags.endTime, 'end-time'),
    tags: flags.tags,
    mime_type: flags.mimeType,
    user: flags.user,
    q: flags.q,
    path: flags.path,
  };
}

/** Epoch milliseconds as given, or an ISO 8601 date turned into them. */
function time(value: string | undefined, name: string): string | undefined {
  if (value === undefined || /^\d+$/.test(value)) return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || ms < 0) {
    throw new UsageError(`--${name}: expected epoch milliseconds or an ISO 8601 date`);
  }
  return String(ms);
}
