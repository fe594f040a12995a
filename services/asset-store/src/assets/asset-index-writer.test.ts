import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
} from 'kysely';
import type { Database } from '../db/database.js';
import { AssetIndexWriter, type IndexSession } from './asset-index-writer.js';
import type { NewAssetRow } from './asset.table.js';

/** Compiles statements as for Postgres; never connects. */
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

type Answer = Awaited<ReturnType<IndexSession['query']>>;

/** Records what is sent (inserts as `insert <rows>`); holds the answers to `commit`s. */
class ScriptedSession implements IndexSession {
  readonly sent: string[] = [];
  #held: (() => void)[] = [];

  query(query: CompiledQuery): Promise<Answer> {
    const rows = query.sql.split('), (').length;
    const what = query.sql.startsWith('insert') ? `insert ${rows}` : query.sql;
    this.sent.push(what);
    if (what !== 'commit') return Promise.resolve({} as Answer);
    return new Promise((resolve) => this.#held.push(() => resolve({} as Answer)));
  }

  answerCommits(): void {
    for (const answer of this.#held.splice(0)) answer();
  }
}

function row(timestamp: number): NewAssetRow {
  return {
    hash: timestamp.toString(16).padStart(64, '0'),
    timestamp,
    mime_type: 'text/plain',
    application: null,
    user: null,
    tags: [],
    description: null,
    human_filename: null,
    human_path: null,
    path: `${timestamp}.txt`,
    size: 1,
  };
}

/** Lets the writer run until `done` holds (a few hundred turns of the event loop at most). */
async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 200 && !done(); turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(done()).toBe(true);
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('AssetIndexWriter on a pipelined session', () => {
  it("sends the next batch's begin and insert right behind a commit, before its answer", async () => {
    const session = new ScriptedSession();
    const writer = new AssetIndexWriter(db, session);
    const firstFile = deferred();
    const first = writer.insert(row(1), firstFile.promise);
    await until(() => session.sent.length === 2);
    const second = writer.insert(row(2), Promise.resolve());
    const third = writer.insert(row(3), Promise.resolve());
    firstFile.resolve();
    await until(() => session.sent.length === 5);
    expect(session.sent).toEqual(['begin', 'insert 1', 'commit', 'begin', 'insert 2']);

    session.answerCommits();
    await first;
    await until(() => session.sent.length === 6);
    session.answerCommits();
    await Promise.all([second, third]);
    expect(session.sent).toEqual(['begin', 'insert 1', 'commit', 'begin', 'insert 2', 'commit']);
  });

  it('writes a row queued while the last batch commits, rather than leaving it waiting', async () => {
    const session = new ScriptedSession();
    const writer = new AssetIndexWriter(db, session);
    const first = writer.insert(row(1), Promise.resolve());
    await until(() => session.sent.includes('commit'));
    const second = writer.insert(row(2), Promise.resolve());
    session.answerCommits();
    await first;
    await until(() => session.sent.length === 6);
    session.answerCommits();
    await second;
    expect(session.sent).toEqual(['begin', 'insert 1', 'commit', 'begin', 'insert 1', 'commit']);
  });
});
