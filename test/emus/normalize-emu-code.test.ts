import { describe, expect, it } from 'vitest';
import { MalformedEmuCodeError, parseEmuCode } from '../../src/domain/emus/normalize-emu-code.js';

describe('EMU code normalisation', () => {
  it.each([
    ['CR400AF2001', 'CR400AF-2001', 'CR400AF', '2001'],
    ['CR400AF-2001', 'CR400AF-2001', 'CR400AF', '2001'],
    ['cr400af-2001', 'CR400AF-2001', 'CR400AF', '2001'],
    [' CR400AF 2001 ', 'CR400AF-2001', 'CR400AF', '2001'],
    ['CR400AF–2001', 'CR400AF-2001', 'CR400AF', '2001'],
    ['CR400BFA5156', 'CR400BF-A-5156', 'CR400BF-A', '5156'],
    ['CR400BF-A-5156', 'CR400BF-A-5156', 'CR400BF-A', '5156'],
    ['CR400BF-A5156', 'CR400BF-A-5156', 'CR400BF-A', '5156'],
    ['CR400AFBZ2261', 'CR400AF-BZ-2261', 'CR400AF-BZ', '2261'],
    ['CR400AF-Z-0216-02-03F', 'CR400AF-Z-0216', 'CR400AF-Z', '0216'],
    ['CR400AF-2001-05', 'CR400AF-2001', 'CR400AF', '2001'],
    ['CR300AF3001', 'CR300AF-3001', 'CR300AF', '3001'],
    ['CR200J-1001', 'CR200J-1001', 'CR200J', '1001'],
    ['CRH380AL2541', 'CRH380AL-2541', 'CRH380AL', '2541'],
    ['CRH380A-2641', 'CRH380A-2641', 'CRH380A', '2641'],
    ['CRH2A2010', 'CRH2A-2010', 'CRH2A', '2010'],
    ['CRH6A-A-0201', 'CRH6A-A-0201', 'CRH6A-A', '0201'],
    // Full-width forms (Unicode NFKC), and the other dash look-alikes.
    ['ＣＲ４００ＡＦ－２００１', 'CR400AF-2001', 'CR400AF', '2001'],
    ['ＣＲ４００ＢＦＡ５１５６', 'CR400BF-A-5156', 'CR400BF-A', '5156'],
    ['CR400AF\u22122001', 'CR400AF-2001', 'CR400AF', '2001'],
    ['CR400AF\u20112001', 'CR400AF-2001', 'CR400AF', '2001'],
    ['CR400AF\u20152001', 'CR400AF-2001', 'CR400AF', '2001'],
    ['CR400AF\uFE632001', 'CR400AF-2001', 'CR400AF', '2001'],
    ['ＣＲ４００ＡＦ－Ｚ－０２１６－０２－０３Ｆ', 'CR400AF-Z-0216', 'CR400AF-Z', '0216'],
  ])('%s -> %s', (input, code, model, trainSetNo) => {
    expect(parseEmuCode(input)).toMatchObject({ code, model, trainSetNo });
  });

  it('keeps an unknown but well-formed code as written (upper-cased), of no family (emu-forms.ts judges it)', () => {
    expect(parseEmuCode('ct-1010')).toEqual({
      code: 'CT-1010',
      model: '',
      family: '',
      trainSetNo: '',
      writtenUnit: 'ct-1010',
    });
  });

  it.each([
    ['CR400AF-Z-0216-02-03F', 'CR400AF-Z-0216'],
    ['cr400af z 0216 02 3f', 'cr400af z 0216'],
    [' CR400AF2001 ', 'CR400AF2001'],
    ['CR400AF-2001-05', 'CR400AF-2001'],
    ['ＣＲ４００ＡＦ２００１', 'CR400AF2001'],
    ['ＣＲ４００ＡＦ－２００１－０２－０３Ｆ', 'CR400AF-2001'],
  ])('keeps %j as the alias %j: the unit as written, without the seat', (input, writtenUnit) => {
    expect(parseEmuCode(input).writtenUnit).toBe(writtenUnit);
  });

  it.each([
    '',
    '   ',
    'CR400AF/2001',
    'G123!',
    '动车组2001',
    '-2001',
    'CR400AF-',
    'ＣＲ４００ＡＦ－',
  ])('refuses %j', (input) => {
    expect(() => parseEmuCode(input)).toThrow(MalformedEmuCodeError);
  });
});
