import { describe, expect, it } from 'vitest';
import { parseNdjsonBlock } from '../../src/domain/ingest/ndjson-block-parser.js';
import type { ParsedChunk } from '../../src/domain/ingest/observation-copy-rows.js';
import { ByteTable } from '../../src/domain/ingest/byte-table.js';
import { LineScanner, newScannedLine } from '../../src/domain/ingest/ndjson-line-scan.js';

/**
 * The scanner (ndjson-line-scan.ts) against the general way (JSON.parse and the validator) on
 * the same blocks: the same COPY bytes, rejects (with their messages), counts, days and pending
 * EMU ids, whatever the line. The scanner must either give exactly what the validator gives or
 * leave the line to it.
 */
const encoder = new TextEncoder();

function parseBoth(text: string | Uint8Array, emuIds?: ReadonlyMap<string, number>) {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  const block = (firstLine: number) => ({
    bytes: new Uint8Array(bytes),
    firstLine,
    batchId: 42,
    file: 'dir/a\tb.ndjson',
    emuIds,
  });
  const plain = (c: ParsedChunk) => ({
    read: c.read,
    valid: c.valid,
    rejects: c.rejects,
    rows: new TextDecoder().decode(c.rows.bytes),
    days: c.rows.days,
    pending: c.rows.pending,
  });
  for (const firstLine of [1, 17]) {
    const general = plain(parseNdjsonBlock(block(firstLine), { scan: false }));
    const scanned = plain(parseNdjsonBlock(block(firstLine)));
    expect(scanned).toEqual(general);
  }
  return plain(parseNdjsonBlock(block(1)));
}

/** How many of the lines the scanner takes (the rest go the general way). */
function scannedCount(text: string): number {
  const bytes = encoder.encode(text);
  const scanner = new LineScanner();
  const out = newScannedLine();
  let n = 0;
  for (let start = 0; start < bytes.length;) {
    if (scanner.scanLine(bytes, start, bytes.length, out)) {
      n++;
      start = out.next;
    } else {
      const lf = bytes.indexOf(0x0a, start);
      start = lf === -1 ? bytes.length : lf + 1;
    }
  }
  return n;
}

const T = 1786671000; // 2026-08-14 08:50 Shanghai
const base = {
  observedAt: T,
  trainCode: 'G4340/37',
  emuCode: 'CR400BF-A-5156',
  source: 'travel-code',
  ref: 'tc-1',
};
const line = (o: Record<string, unknown>) => JSON.stringify(o);

/** Lines that are odd in one way each; many must be left to the general way. */
function oddLines(): string[] {
  const out: string[] = [];
  const variants: Record<string, unknown[]> = {
    observedAt: [
      T,
      T + 0.5,
      -T,
      0,
      1,
      1e11,
      1e11 + 1,
      T * 1000,
      1167609599,
      1167609600,
      4102444799,
      4102444800,
      '1786671000',
      ' 1786671000 ',
      '1786671000.9',
      '2026-08-14T08:30:00+08:00',
      '2026-08-14T08:30:00Z',
      '2026-08-14T08:30:00z',
      '2026-08-14T08:30:00-03:30',
      '2026-08-14T08:30:00+23:59',
      '2026-08-14T08:30:00+24:00',
      '2026-08-14T08:30:00+08:60',
      '2026-08-14T08:30:00+0800',
      '2026-08-14 08:30:00+08:00',
      '2026-08-14T08:30+08:00',
      '2026-08-14T08:30:00.250+08:00',
      '2026-08-14T24:00:00+08:00',
      '2026-08-14T23:59:60+08:00',
      '2026-08-14T23:60:00+08:00',
      '2026-02-29T10:00:00+08:00',
      '2028-02-29T10:00:00+08:00',
      '2100-02-29T10:00:00+08:00',
      '2026-04-31T10:00:00+08:00',
      '2026-13-01T10:00:00+08:00',
      '2026-00-01T10:00:00+08:00',
      '2026-08-00T10:00:00+08:00',
      '2006-12-31T23:59:59Z',
      '2007-01-01T00:00:00Z',
      '2007-01-01T07:59:59+08:00',
      '2099-12-31T23:59:59Z',
      '2099-12-31T23:59:59-01:00',
      '0026-08-14T08:30:00+08:00',
      '2026-08-14T08:30:00',
      '2026-8-14T08:30:00+08:00',
      '2026-08-14T08:30:00+08:00 ',
      '2026-08-14T0a:30:00+08:00',
      '',
      null,
      true,
      [],
      {},
    ],
    trainCode: [
      'G1',
      'g1234',
      'G4340/37',
      'G4340/G4337',
      'G4340/4340',
      'G4340/5',
      'G4340/123456',
      'G 1234',
      ' G1234',
      'G1234 ',
      'G0123',
      'G12A',
      '1461',
      'S1',
      'GG1',
      'G123456',
      '',
      'G1/' + Array.from({ length: 120 }, (_, i) => String(i + 2)).join('/'),
      1461,
      null,
      '\u0047123',
    ],
    emuCode: [
      'CR400AF-2001',
      'CR400AF2001',
      'cr400af-2001',
      'CR400BFA5156',
      'CR400AF-Z-0216-02-03F',
      'CR400AF-Z-0216-02-3F',
      'CR400AF-Z-0216-02-03G',
      'CR400AF-Z-0216-02-03f',
      'CR400AF-Z-0216-02',
      'CR400AF-Z-0216-2',
      'CR400AF-Z-0216-02-003F',
      'CR400AF-0216-02-03F',
      'CR400AF0216-02-03F',
      'CR400AF--0216-02-03F',
      'CR400AF-0216--02-03F',
      'CR400AF_0216-02-03F',
      'CR400AF 0216-02-03F',
      'CR400AF\u20130216-02-03F',
      'CRH380A-2808-05-12A',
      'CRH6A-A-0201-01',
      'CRH2A2430-03',
      'XYZ-1234-05-06A',
      'X-1234-56-7890-12',
      '-CR400AF-2001-01',
      'CR400AF-2001-',
      'CR400AF-2001-01-',
      'CRH1AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-1234',
      'CR400AF-Z-0216-02-03F '.trim(),
      ' CR400AF-2001',
      'UNKNOWN1',
      'bad code!',
      '',
      2001,
      null,
    ],
    source: [
      'report',
      'x'.repeat(64),
      'x'.repeat(65),
      ' report',
      'rep\\ort',
      'rép',
      'a\tb',
      '',
      '   ',
      7,
      null,
    ],
    ref: [
      'tc-1',
      undefined,
      '',
      '  ',
      ' r1',
      'r'.repeat(200),
      'r'.repeat(201),
      'r\\1',
      'r\n1',
      'r\u00e91',
      'r\u2028',
      '\ud83d\ude80',
      12,
      0,
      null,
      false,
    ],
    serviceDate: [
      undefined,
      '20260814',
      '20260813',
      '19000101',
      '00000101',
      '20260230',
      '20281301',
      '2026081',
      '202608140',
      ' 20260814',
      '2026-08-14',
      20260814,
      '',
      null,
    ],
  };
  for (const [field, values] of Object.entries(variants)) {
    for (const v of values) {
      const o: Record<string, unknown> = { ...base };
      if (v === undefined) delete o[field];
      else o[field] = v;
      out.push(line(o));
      // The same without a ref (content keys), and with a stated service day.
      const { ref: _ref, ...noRef } = o;
      out.push(line(noRef));
      out.push(line({ ...noRef, serviceDate: '20260814' }));
    }
  }
  const ok = line(base);
  out.push(
    // Whitespace, key order, repeats, other keys.
    ok.replace(/([,:{])/g, '$1 '),
    ok.replace(/([,:{])/g, '\t$1\t'),
    ' ' + ok + ' \t',
    '{' + ok.slice(1).replace(/"/g, '"').split(',').reverse().join(',').replace(/}$/, '') + '}',
    line({
      source: base.source,
      ref: 'tc-9',
      emuCode: base.emuCode,
      trainCode: 'G1',
      observedAt: T,
    }),
    ok.replace('}', ',"ref":"tc-2"}'),
    ok.replace('}', ',"observedAt":"2026-08-14T08:30:00+08:00"}'),
    ok.replace('{', '{"ref":"first",'),
    ok.replace('}', ',"coach":5}'),
    ok.replace('}', ',"extra":{"a":[1,2,{"b":null}]}}'),
    ok.replace('}', ',"__proto__":{"observedAt":1}}'),
    ok.replace('"observedAt"', '"observed\\u0041t"'),
    ok.replace('"source"', '"Source"'),
    ok.replace('"tc-1"', '"tc\\/1"'),
    ok.replace('"tc-1"', '"tc\\u002d1"'),
    ok.replace('"tc-1"', '"tc-\\"1"'),
    ok.replace(String(T), `${T}.0`),
    ok.replace(String(T), `${T}e0`),
    ok.replace(String(T), `0${T}`),
    ok.replace(String(T), `+${T}`),
    ok.replace(String(T), '1.7866710e9'),
    ok.replace(String(T), '17866710000000000000000000'),
    ok.replace(String(T), '1e400'),
    // Not JSON, or not an object.
    ok + 'x',
    ok + ',',
    ok.slice(0, -1),
    ok.slice(1),
    ok.replace(',', ',,'),
    ok.replace('}', ',}'),
    ok.replace(':', ''),
    '[' + ok + ']',
    '"' + base.source + '"',
    '42',
    'null',
    '{}',
    '{"observedAt": oops}',
    ok.replace('"tc-1"', "'tc-1'"),
    ok.replace('"G4340/37"', '"G4340/37\u0001"'),
    ok.replace('"G4340/37"', '"G4340/37\u007f"'),
    ok + '\u000b',
    '\u000b' + ok,
    '\u00a0' + ok,
    '\ufeff' + ok,
    '   ',
    '',
    '\u00a0',
  );
  return out;
}

describe('the NDJSON line scanner', () => {
  it('gives what JSON.parse and the validator give, on lines odd in every way', () => {
    const lines = oddLines();
    // One line per block, and all in one block with every line break.
    for (const l of lines) {
      parseBoth(l + '\n');
      parseBoth(l);
    }
    for (const sep of ['\n', '\r\n', '\r']) parseBoth(lines.join(sep) + sep);
    const r = parseBoth(lines.join('\n') + '\n');
    expect(r.rejects.length).toBeGreaterThan(100);
    expect(r.valid).toBeGreaterThan(200);
    // It does take the common shapes.
    expect(scannedCount(lines.join('\n'))).toBeGreaterThan(150);
  });

  it('takes a line with a byte-order mark, bad UTF-8 and blank lines the general way', () => {
    const ok = line(base);
    const bytes = new Uint8Array([
      ...encoder.encode('\ufeff' + ok + '\n\n  \n'),
      ...[0x7b, 0x22, 0xe9, 0xff, 0x22, 0x7d, 0x0a],
      ...encoder.encode(ok.replace('tc-1', 'tc-2') + '\r\n'),
      ...[0xe9, 0x0a],
      ...encoder.encode(ok.replace('tc-1', 'tc-3').replace('report', 'r\u00e9port')),
    ]);
    const r = parseBoth(bytes);
    expect(r.read).toBe(5);
    expect(r.rejects.map((x) => x.line)).toEqual([4, 6]);
  });

  it('keeps the first line of a repeated key, and registers the written units of repeats', () => {
    const lines = [
      line({ ...base, emuCode: 'CR400BF-A-5156', ref: undefined }),
      line({ ...base, emuCode: 'CR400BFA5156', ref: undefined }),
      line({ ...base, emuCode: 'CR400BF-A-5156-03-12C', ref: undefined }),
      line({ ...base, observedAt: '2026-08-14T08:50:00+08:00', ref: 'x' }),
      line({ ...base, observedAt: T + 60, ref: 'x' }),
      line({ ...base, observedAt: T + 60, ref: 'x', serviceDate: '20260813' }),
      line({ ...base, emuCode: 'CRH380A-2808-05-12A', ref: 'y' }),
      line({ ...base, emuCode: 'CRH380A2808', ref: 'z' }),
      line({ ...base, emuCode: 'cr400bf-a-5156', ref: undefined }),
    ];
    for (const known of [
      undefined,
      new Map([['CR400BF-A-5156', 7]]),
      new Map([
        ['CR400BFA5156', 1234567890],
        ['CRH380A-2808', 3],
      ]),
    ]) {
      const r = parseBoth(lines.join('\n'), known);
      expect(r.valid).toBe(9);
    }
    const r = parseBoth(lines.join('\n'));
    expect(r.rows.split('\n').length - 1).toBe(5);
    expect(r.pending.units).toEqual([
      'CR400BF-A-5156',
      'CR400BFA5156',
      'CRH380A-2808',
      'CRH380A2808',
      'cr400bf-a-5156',
    ]);
  });

  it('reads ISO times with every offset as Date.parse does', () => {
    const lines: string[] = [];
    for (const sign of ['+', '-'])
      for (let h = 0; h <= 25; h++)
        for (const m of [0, 1, 30, 59, 60]) {
          const off = `${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
          lines.push(line({ ...base, ref: off, observedAt: `2026-08-14T08:30:00${off}` }));
        }
    for (const d of ['2007-01-01T00:00:00', '2099-12-31T23:59:59', '2024-02-29T12:00:00'])
      for (const off of ['Z', '+14:00', '-12:00', '+23:59', '-23:59'])
        lines.push(line({ ...base, ref: d + off, observedAt: d + off }));
    const r = parseBoth(lines.join('\n'));
    expect(scannedCount(lines.join('\n'))).toBeGreaterThan(2 * 24 * 4);
    expect(r.rejects.length).toBeGreaterThan(0);
  });

  it('gives the same on 20,000 lines pieced together at random', () => {
    let seed = 12345;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const pick = <V>(xs: readonly V[]): V => xs[rand(xs.length)]!;
    const day = () => String(1 + rand(31)).padStart(2, '0');
    // Per field: values of the common shape (valid or not), then odd ones.
    const pieces: Record<string, [() => string, () => string]> = {
      observedAt: [
        () =>
          rand(5) > 0
            ? String(T + rand(200_000) - 100_000)
            : `"2026-${pick(['08', '02', '04'])}-${day()}T${String(rand(25)).padStart(2, '0')}:${String(rand(61)).padStart(2, '0')}:${String(rand(61)).padStart(2, '0')}${pick(['Z', '+08:00', '-05:30', '+23:59'])}"`,
        () => pick(['1.5e9', `"${T}"`, 'null', '-1', `${T}.5`, '0', '"2026-08-14T08:30:00+0800"']),
      ],
      trainCode: [
        () =>
          `"${pick(['G', 'D', 'C', 'g', 'K', ''])}${rand(12000)}${pick(['', '', '', '/' + rand(99), '/G' + rand(9999)])}"`,
        () => pick(['" G1"', '"G1 "', '1461', 'null', '"G1\u0030"', '""']),
      ],
      emuCode: [
        () =>
          `"${pick(['CR400AF', 'CR400BF', 'CRH380A', 'CRH2A', 'cr400af', 'XYZ', 'CR300AF-Z'])}${pick(['-', '-', '', '-A-', 'A', '--'])}${String(rand(10000)).padStart(4, '0')}${pick(['', '', '-0' + rand(10), `-0${rand(10)}-${rand(20)}${pick(['A', 'C', 'F', 'G', 'a'])}`])}"`,
        () => pick(['"CR400AF_2001"', '"CR400AF 2001-01"', '"CR400AF\u002d2001"', '""', '7']),
      ],
      source: [
        () =>
          `"${pick(['report', 'travel-code', 'station-board', 's'.repeat(64), 's'.repeat(65)])}"`,
        () => pick(['" x"', '"caf\u00e9"', '"café"', '""', 'null']),
      ],
      ref: [
        () => `"${pick(['r', 'tc-', 'sb-', 'x'.repeat(199)])}${rand(3000)}"`,
        () => pick(['null', '""', '" r"', '"x\\ty"', '5']),
      ],
      serviceDate: [
        () => `"2026${pick(['08', '02', '13'])}${String(rand(35)).padStart(2, '0')}"`,
        () => pick(['20260814', '""', '"2026-08-14"', '" 20260814"']),
      ],
    };
    const out: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const fields = Object.entries(pieces).filter(
        ([k]) => (k !== 'ref' && k !== 'serviceDate') || rand(3) > 0,
      );
      if (rand(100) === 0) fields.push(pick(Object.entries(pieces))); // a repeated key
      if (rand(100) === 0) fields.splice(rand(fields.length), 1); // a missing one
      for (let k = fields.length - 1; k > 0 && rand(4) === 0; k--) {
        const j = rand(k + 1);
        [fields[k], fields[j]] = [fields[j]!, fields[k]!];
      }
      const odd = rand(3) === 0;
      const sp = () => (odd ? pick(['', '', ' ', '\t']) : '');
      const text =
        '{' +
        sp() +
        fields
          .map(
            ([k, [common, other]]) =>
              `"${k}"${sp()}:${sp()}${odd && rand(3) === 0 ? other() : common()}`,
          )
          .join(`,${sp()}`) +
        sp() +
        '}';
      out.push(rand(400) === 0 ? text.slice(0, rand(text.length)) : text);
      // Repeats, a few lines back.
      if (rand(20) === 0 && out.length > 10) out.push(out[out.length - 1 - rand(10)]!);
    }
    const r = parseBoth(out.join('\n') + '\n');
    expect(scannedCount(out.join('\n'))).toBeGreaterThan(5_000);
    expect(r.valid).toBeGreaterThan(5_000);
    expect(r.rejects.length).toBeGreaterThan(1_000);
    // Repeats of a key are counted valid and store no row.
    expect(r.valid).toBeGreaterThan(r.rows.split('\n').length - 1);
  });

  it("keeps its tables' keys and bytes right through growing and clearing", () => {
    const table = new ByteTable<{ at: number; length: number }>(700);
    const key = (i: number) => encoder.encode(`K${i}-${'x'.repeat(i % 40)}`);
    const payload = (i: number) => encoder.encode(`payload of ${i}`.repeat(1 + (i % 5)));
    const find = (i: number) => {
      const k = key(i);
      return table.get(k, 0, k.length, ByteTable.hashOf(k, 0, k.length));
    };
    for (let i = 0; i < 2_000; i++) {
      const k = key(i);
      const h = ByteTable.hashOf(k, 0, k.length);
      expect(table.get(k, 0, k.length, h)).toBeUndefined();
      table.add(k, 0, k.length, h, () => {
        const p = payload(i);
        return { at: table.append(p, 0, p.length), length: p.length };
      });
      // The last few added are there, with their bytes (cleared every 700 entries).
      for (let j = Math.max(0, i - (i % 700)); j <= i; j += 37) {
        const e = find(j)!;
        expect(new TextDecoder().decode(table.arena.subarray(e.at, e.at + e.length))).toBe(
          new TextDecoder().decode(payload(j)),
        );
      }
    }
    expect(find(1_999)).toBeDefined();
    expect(find(1_300)).toBeUndefined();
  });
});

describe('the status fields (position, fault, spare) on both parse paths', () => {
  const line = (extra: Record<string, unknown>) => JSON.stringify({ ...base, ...extra });

  it('scans the common forms and gives the rows the validator gives', () => {
    const lines = [
      line({ position: 'first', fault: true, spare: false, ref: 'r-0' }),
      line({ position: 'second', ref: 'r-1' }),
      line({ position: 'single', spare: true, ref: 'r-2' }),
      line({ fault: false, ref: 'r-3' }),
      line({ ref: 'r-4' }),
    ];
    const text = lines.join('\n') + '\n';
    expect(scannedCount(text)).toBe(lines.length);
    const r = parseBoth(text);
    expect(r.valid).toBe(5);
    const cells = r.rows
      .trim()
      .split('\n')
      .map((row) => row.split('\t').slice(-3));
    expect(cells).toEqual([
      ['first', 't', 'f'],
      ['second', '\\N', '\\N'],
      ['single', '\\N', 't'],
      ['\\N', 'f', '\\N'],
      ['\\N', '\\N', '\\N'],
    ]);
  });

  it('leaves other spellings to the validator, which takes them or names the field', () => {
    const lines = [
      line({ position: 'FIRST', ref: 'a' }),
      line({ fault: 'true', ref: 'b' }),
      line({ spare: 'False', ref: 'c' }),
      line({ position: null, fault: null, ref: 'd' }),
      line({ position: 'third', ref: 'e' }),
      line({ fault: 1, ref: 'f' }),
      line({ spare: 'yes', ref: 'g' }),
    ];
    const text = lines.join('\n') + '\n';
    expect(scannedCount(text)).toBe(0);
    const r = parseBoth(text);
    expect(r.valid).toBe(4);
    expect(r.rejects.map((x) => [x.line, x.field, x.reason])).toEqual([
      [5, 'position', 'position: expected "single", "first" or "second", got "third"'],
      [6, 'fault', 'fault: expected true or false, got 1'],
      [7, 'spare', 'spare: expected true or false, got "yes"'],
    ]);
    const cells = r.rows
      .trim()
      .split('\n')
      .map((row) => row.split('\t').slice(-3));
    expect(cells).toEqual([
      ['first', '\\N', '\\N'],
      ['\\N', 't', '\\N'],
      ['\\N', '\\N', 'f'],
      ['\\N', '\\N', '\\N'],
    ]);
  });
});
