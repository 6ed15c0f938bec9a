import { describe, expect, it } from 'vitest';
import {
  expandTrainCodes,
  MalformedTrainCodeError,
  normalizeTrainCode,
  splitTrainCode,
} from '../../src/domain/trains/train-code.js';

describe('train codes', () => {
  it('normalises case and spaces', () => {
    expect(normalizeTrainCode(' g2492 ')).toBe('G2492');
    expect(normalizeTrainCode('1461')).toBe('1461');
  });

  it.each([
    ['G4340/37', ['G4340', 'G4337']],
    ['G4340/G4337', ['G4340', 'G4337']],
    ['g4340/4337', ['G4340', 'G4337']],
    ['D5/6', ['D5', 'D6']],
    ['G1', ['G1']],
    ['G1/1', ['G1']],
  ])('expands %s', (input, codes) => {
    expect(expandTrainCodes(input)).toEqual(codes);
  });

  it.each(['', 'G', 'G12A', 'G0123', 'G123456', 'G4340/123456', 'G4340/', 'GG12', 'G1-2'])(
    'refuses %j',
    (input) => {
      expect(() => expandTrainCodes(input)).toThrow(MalformedTrainCodeError);
    },
  );

  it('reads full-width letters and digits as their ASCII forms (Unicode NFKC)', () => {
    expect(normalizeTrainCode('Ｇ２４９２')).toBe('G2492');
    expect(normalizeTrainCode('ｄｊ８８５８')).toBe('DJ8858');
    expect(expandTrainCodes('Ｄ4595/8')).toEqual(['D4595', 'D4598']);
    expect(expandTrainCodes('Ｇ４３４０／Ｇ４３３７')).toEqual(['G4340', 'G4337']);
    // Still refused when the ASCII form is, with the same reasons.
    expect(() => normalizeTrainCode('ＸＹＺ１')).toThrow(/XYZ is not a train-number prefix in use/);
    expect(() => expandTrainCodes('Ｇ８７６２／３／')).toThrow(/a '\/' with no number after it/);
  });

  it('refuses a trailing separator, saying so', () => {
    expect(() => expandTrainCodes('G8762/3/')).toThrow(
      /^a '\/' with no number after it; expected a train number such as G1234/,
    );
  });

  it('splits into prefix and number', () => {
    expect(splitTrainCode('G1234')).toEqual({ prefix: 'G', number: 1234 });
    expect(splitTrainCode('1461')).toEqual({ prefix: '', number: 1461 });
  });
});
