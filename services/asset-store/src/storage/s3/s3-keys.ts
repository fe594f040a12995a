/**
 * A blob's version from its size and ETag. Quotes dropped: a gateway may quote the ETag in
 * one answer and not another (Ceph's copy result).
 */
export function objectVersion(size: number, etag: string | undefined): string {
  return `${size}:${(etag ?? '').replace(/^"|"$/g, '')}`;
}

/** `bucket/key` for `CopySource`, each segment URL-encoded as S3 expects. */
export function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}
