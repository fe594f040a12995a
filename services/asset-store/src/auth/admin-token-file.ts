import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The admin token kept in `admin_token_file`, and whether this start wrote it. */
export interface AdminTokenFile {
  token: string;
  file: string;
  created: boolean;
}

/**
 * The token in `file`, made first when the file is absent: 32 random bytes, base64url, mode
 * 0600, its folder created. Written beside it and linked into place, so instances starting
 * together on one folder agree on one token and none reads a half-written file.
 */
export function adminTokenFromFile(file: string): AdminTokenFile {
  const existing = readToken(file);
  if (existing !== undefined) return { token: existing, file, created: false };
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  const scratch = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(scratch, `${token}\n`, { mode: 0o600 });
  try {
    fs.linkSync(scratch, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another instance was first: its token is the one.
    return { token: readToken(file) ?? token, file, created: false };
  } finally {
    fs.rmSync(scratch, { force: true });
  }
  return { token, file, created: true };
}

function readToken(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`admin_token_file ${file}: ${(err as Error).message}`);
  }
  const token = text.trim();
  if (token === '') throw new Error(`admin_token_file ${file} is empty`);
  return token;
}

/** The line a start prints about the token: where it is and how to send it. */
export function adminTokenLine(kept: AdminTokenFile): string {
  return (
    `asset-store admin token ${kept.created ? 'written to' : 'read from'} ${kept.file}: ` +
    'send it as `Authorization: Bearer <token>`, paste it where the console asks, or ' +
    `\`ASSET_STORE_TOKEN=$(cat ${kept.file}) asset-store jobs\`\n`
  );
}
