import fs from 'node:fs';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/** The parts of Emscripten's NODEFS a flush needs (PGlite does not type them). */
interface EmscriptenNodeFs {
  stream_ops: { fsync?: (stream: { nfd?: number }) => number };
  tryFSOperation<T>(operation: () => T): T;
}

/**
 * Emscripten's Node file system has no fsync: PostgreSQL's flushes of its WAL and data
 * files reach it and do nothing, so an acknowledged commit could be lost in a power cut.
 * This one flushes them to the disk. Folders that cannot be flushed (Windows) are as
 * durable as that system makes them.
 */
class DurableNodeFS extends NodeFS {
  override async init(
    pg: PGlite,
    emscriptenOptions: Parameters<NodeFS['init']>[1],
  ): Promise<Awaited<ReturnType<NodeFS['init']>>> {
    const result = await super.init(pg, emscriptenOptions);
    const options = result.emscriptenOpts as {
      preRun?: ((mod: { NODEFS: EmscriptenNodeFs }) => void)[];
    };
    options.preRun = [
      ...(options.preRun ?? []),
      (mod) => {
        const nodefs = mod.NODEFS;
        nodefs.stream_ops.fsync = (stream) => {
          const fd = stream.nfd;
          if (fd === undefined) return 0;
          nodefs.tryFSOperation(() => {
            try {
              fs.fsyncSync(fd);
            } catch (err) {
              if (!(isUnflushableFolderError(err) && fs.fstatSync(fd).isDirectory())) throw err;
            }
          });
          return 0;
        };
      },
    ];
    return result;
  }
}

/** How Windows refuses to flush a folder; PostgreSQL itself ignores that for folders. */
function isUnflushableFolderError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL' || code === 'EBADF';
}

/**
 * PostgreSQL's start-up flags under PGlite, with the flushes turned back on: PGlite passes
 * `-F` (fsync off) by default, and its file system has no `fdatasync`, so the WAL is
 * flushed with fsync.
 */
const DURABLE_START_PARAMS = [
  ...PGlite.defaultStartParams.filter((param) => param !== '-F'),
  '-c',
  'wal_sync_method=fsync',
];

/** A PGlite that keeps its files in `dataDir` and flushes them as PostgreSQL asks. */
export function createDurablePGlite(
  dataDir: string,
  options: Omit<PGliteOptions, 'fs' | 'dataDir' | 'startParams'>,
): Promise<PGlite> {
  return PGlite.create({
    ...options,
    fs: new DurableNodeFS(dataDir),
    startParams: DURABLE_START_PARAMS,
  });
}
