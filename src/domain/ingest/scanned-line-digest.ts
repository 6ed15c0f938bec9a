import { hash } from 'node:crypto';
import type { ScannedLine } from './ndjson-line-scan.js';
import { writeInt } from './scan-digits.js';

const encoder = new TextEncoder();

/**
 * Bytes to hash for a scanned line's dedup key, as dedupKeyOf builds it: ref, source and ref;
 * or content, source, time, train numbers, canonical EMU code and the stated service day. At
 * most about 420 bytes (source, ref, train and EMU codes are bounded by the scanner). A scratch
 * buffer only: filled and hashed within one call, so nothing in it outlives the call.
 */
const material = Buffer.alloc(1024);
const REF_TAG = encoder.encode('ref\u0000');
const CONTENT_TAG = encoder.encode('content\u0000');

function put(src: Uint8Array, start: number, end: number, at: number): number {
  for (let i = start; i < end; i++) material[at++] = src[i]!;
  return at;
}

/** The sha256 of a scanned line's dedup material (as dedupKeyOf hashes it), as 8 words. */
export function dedupDigest(bytes: Uint8Array, s: ScannedLine, out: Int32Array): void {
  let at: number;
  if (s.refStart >= 0) {
    at = put(REF_TAG, 0, REF_TAG.length, 0);
    at = put(bytes, s.sourceStart, s.sourceEnd, at);
    material[at++] = 0;
    at = put(bytes, s.refStart, s.refEnd, at);
  } else {
    at = put(CONTENT_TAG, 0, CONTENT_TAG.length, 0);
    at = put(bytes, s.sourceStart, s.sourceEnd, at);
    material[at++] = 0;
    at =
      s.observedAtStart >= 0
        ? put(bytes, s.observedAtStart, s.observedAtEnd, at)
        : writeInt(material, at, s.observedAt);
    material[at++] = 0;
    at = put(s.trainBytes, s.trainCodeStart, s.trainCodeEnd, at);
    material[at++] = 0;
    const emu = s.emu!;
    at = put(emu.bytes, emu.canonicalStart, emu.canonicalEnd, at);
    material[at++] = 0;
    if (s.serviceDateGiven) at = writeInt(material, at, s.serviceDay);
  }
  // node:crypto's one-call hash into a Buffer; its words are read straight out of it.
  const digest = hash('sha256', material.subarray(0, at), 'buffer');
  for (let k = 0; k < 8; k++) out[k] = digest.readInt32BE(k * 4);
}
