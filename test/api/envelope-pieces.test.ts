import { describe, expect, it } from 'vitest';
import {
  dataEnvelopeBytes,
  dataEnvelopeOfPieces,
  utf8Concat,
} from '../../src/http/api/envelope.js';
import { dataEnvelopeJson } from '../../src/http/api/v2-sending.js';

/**
 * A page written as text pieces (a slice of a kept day's text among them) is sent as the bytes
 * of its joined text: every piece encoded once, straight into one buffer.
 */
describe('utf8Concat and dataEnvelopeOfPieces', () => {
  const day = Array.from({ length: 500 }, (_, i) => `{"id":${i},"status":1}`).join(',');
  const pieces = [
    '{"items":[',
    day.slice(day.indexOf('{"id":7,'), day.indexOf(',{"id":300,')),
    '],"timetableMappings":{"9":{"startStation":"北京南","endStation":"上海虹桥 \\"x\\""}}',
    '',
    '}',
  ];

  it('writes the bytes of the joined text, multi-byte characters and empty pieces included', () => {
    expect(utf8Concat(pieces).equals(Buffer.from(pieces.join('')))).toBe(true);
    expect(utf8Concat([]).length).toBe(0);
    expect(utf8Concat(['', '😀', 'é']).toString()).toBe('😀é');
  });

  it('wraps the pieces in the envelope as the text and the bytes forms do', () => {
    const meta = { remain: 12, cost: 3 };
    const joined = pieces.join('');
    const bytes = dataEnvelopeOfPieces(meta, pieces);
    expect(bytes.toString()).toBe(dataEnvelopeJson(meta, joined));
    expect(bytes.equals(dataEnvelopeBytes(meta, Buffer.from(joined)))).toBe(true);
    expect(JSON.parse(bytes.toString()).data.timetableMappings['9'].endStation).toBe(
      '上海虹桥 "x"',
    );
  });
});
