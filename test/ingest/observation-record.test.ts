import { describe, expect, it } from 'vitest';
import {
  isProblem,
  toObservationRecord,
  type ObservationRecord,
} from '../../src/domain/ingest/observation-record.js';

const base = { observedAt: 1786671000, trainCode: 'G1', emuCode: 'CR400AF-2001', source: 'report' };

function ok(input: Record<string, unknown>): ObservationRecord {
  const r = toObservationRecord(input);
  if (isProblem(r)) throw new Error(r.reason);
  return r;
}

function problem(input: unknown): { field: string | null; reason: string } {
  const r = toObservationRecord(input);
  if (!isProblem(r)) throw new Error('expected a problem');
  return r;
}

describe('an observation line', () => {
  it('is attributed to the Shanghai service day of observedAt', () => {
    // 2026-08-14 00:30 in Shanghai is 2026-08-13 16:30 UTC.
    expect(ok({ ...base, observedAt: Date.parse('2026-08-13T16:30:00Z') / 1000 }).serviceDay).toBe(
      20679,
    );
    expect(ok({ ...base, observedAt: Date.parse('2026-08-13T15:30:00Z') / 1000 }).serviceDay).toBe(
      20678,
    );
  });

  it('takes ISO-8601 with an offset, and numeric strings (CSV)', () => {
    expect(ok({ ...base, observedAt: '2026-08-14T08:30:00+08:00' }).observedAt).toBe(
      Date.parse('2026-08-14T00:30:00Z') / 1000,
    );
    expect(ok({ ...base, observedAt: '2026-08-14T00:30:00Z' }).observedAt).toBe(
      Date.parse('2026-08-14T00:30:00Z') / 1000,
    );
    expect(ok({ ...base, observedAt: '2026-08-14 08:30:00+0800' }).observedAt).toBe(
      Date.parse('2026-08-14T00:30:00Z') / 1000,
    );
    expect(ok({ ...base, observedAt: '1786671000' }).observedAt).toBe(1786671000);
  });

  it('lets serviceDate override attribution', () => {
    const r = ok({
      ...base,
      observedAt: Date.parse('2026-08-14T17:00:00Z') / 1000,
      serviceDate: '20260814',
    });
    expect(r.serviceDay).toBe(20679);
    expect(r.serviceDateGiven).toBe(true);
  });

  it('counts a paired run for both numbers', () => {
    const r = ok({ ...base, trainCode: 'g4340/37' });
    expect(r.trainCodes).toEqual(['G4340', 'G4337']);
    expect(r.trainCode).toBe('G4340/G4337');
  });

  it('dedups on source + ref when ref is given, else on content with the canonical EMU code', () => {
    expect(ok({ ...base, ref: 'a' }).dedupKey).toBe(
      ok({ ...base, ref: 'a', observedAt: 1786671999 }).dedupKey,
    );
    expect(ok({ ...base, ref: 'a' }).dedupKey).not.toBe(
      ok({ ...base, ref: 'a', source: 'travel-code' }).dedupKey,
    );
    expect(ok(base).dedupKey).toBe(ok({ ...base, emuCode: 'CR400AF2001' }).dedupKey);
    expect(ok(base).dedupKey).not.toBe(ok({ ...base, observedAt: 1786671001 }).dedupKey);
    expect(ok({ ...base, ref: '' }).ref).toBeNull();
  });

  it.each([
    [{ ...base, observedAt: undefined }, 'observedAt', /missing/],
    [{ ...base, observedAt: 1786671000000 }, 'observedAt', /milliseconds/],
    [{ ...base, observedAt: 100 }, 'observedAt', /outside/],
    [{ ...base, observedAt: '2026-08-14T25:10:00+08:00' }, 'observedAt', /hour 25 is impossible/],
    [{ ...base, observedAt: '2026-02-30T10:00:00+08:00' }, 'observedAt', /date does not exist/],
    [{ ...base, observedAt: '2026-08-14T10:00:00' }, 'observedAt', /with an offset/],
    [{ ...base, observedAt: true }, 'observedAt', /expected Unix seconds/],
    [{ ...base, trainCode: undefined }, 'trainCode', /missing/],
    [{ ...base, trainCode: 'G12A' }, 'trainCode', /expected a train number/],
    [{ ...base, emuCode: '' }, 'emuCode', /missing/],
    [{ ...base, emuCode: 'CR400AF/2001' }, 'emuCode', /malformed EMU code/],
    [{ ...base, source: '  ' }, 'source', /missing/],
    [{ ...base, source: 'x'.repeat(65) }, 'source', /longer than 64/],
    [{ ...base, ref: 'r'.repeat(201) }, 'ref', /longer than 200/],
    [{ ...base, serviceDate: '20260230' }, 'serviceDate', /does not exist/],
    [{ ...base, serviceDate: '2026081' }, 'serviceDate', /8 digits/],
  ])('names the field of a bad value: %j', (input, field, reason) => {
    const p = problem(input);
    expect(p.field).toBe(field);
    expect(p.reason.startsWith(`${field}: `)).toBe(true);
    expect(p.reason).toMatch(reason);
  });

  it.each([[null], [[1, 2]], ['text'], [42]])(
    'refuses a line that is not an object: %j',
    (input) => {
      expect(problem(input)).toMatchObject({ field: null });
    },
  );
});
