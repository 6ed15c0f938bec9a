// http_ece ships no types; the tests use its decrypt only (RFC 8188 / RFC 8291 receiver side).
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';
  export function decrypt(
    buffer: Buffer,
    params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: Buffer | string },
  ): Buffer;
}
