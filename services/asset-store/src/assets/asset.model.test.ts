import { toAssetRecord } from './asset.model.js';
import type { AssetRow } from './asset.table.js';

const row: AssetRow = {
  hash: 'f'.repeat(64),
  timestamp: 42,
  mime_type: 'text/plain',
  application: null,
  user: '',
  tags: [],
  description: 'd',
  human_filename: null,
  human_path: null,
  is_trashed: false,
  is_corrupted: true,
  content_sha256: null,
  width: null,
  height: null,
  taken_at: null,
  path: 'x.txt',
  size: 1,
  indexed_at: new Date(0),
};

describe('asset record', () => {
  it('leaves absent optional metadata out and always shows tags', () => {
    expect(toAssetRecord(row)).toEqual({
      hash: 'f'.repeat(64),
      mime_type: 'text/plain',
      tags: [],
      description: 'd',
      timestamp: 42,
      is_trashed: false,
      is_corrupted: true,
      size: 1,
      width: null,
      height: null,
      taken_at: null,
    });
  });
});
