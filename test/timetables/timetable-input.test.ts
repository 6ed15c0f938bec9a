import { describe, expect, it } from 'vitest';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import {
  canonicalTimetableJson,
  timetableContentHash,
  timetableEnds,
} from '../../src/domain/timetables/timetable-content.js';
import {
  isTimetableProblem,
  toTimetableInput,
  type TimetableInput,
} from '../../src/domain/timetables/timetable-input.js';
import {
  clockTimeOfOffset,
  parseTimetableTime,
} from '../../src/domain/timetables/timetable-time.js';
import { timetable } from '../helpers/timetables.js';

const D3125 = timetable('D3125', '20260701', [
  ['上海虹桥', undefined, '21:40'],
  ['南京南', '23:35', '23:39'],
  ['滁州', '24:05', '24:07'],
  ['蚌埠南', '25:10'],
]);

function valid(value: unknown): TimetableInput {
  const t = toTimetableInput(value);
  if (isTimetableProblem(t)) throw new Error(t.reason);
  return t;
}

function refusal(value: unknown): [string | null, string] {
  const t = toTimetableInput(value);
  if (!isTimetableProblem(t)) throw new Error('accepted');
  return [t.field, t.reason];
}

const withStop = (i: number, patch: Record<string, unknown>) => ({
  ...D3125,
  stops: (D3125.stops as Record<string, unknown>[]).map((s, j) =>
    j === i ? { ...s, ...patch } : s,
  ),
});

describe('timetable times', () => {
  it('reads HH:MM with hours past 24, HH:MM:SS, and seconds from midnight', () => {
    expect(parseTimetableTime('07:05')).toBe(7 * 3600 + 300);
    expect(parseTimetableTime('25:10')).toBe(90_600);
    expect(parseTimetableTime('29:23')).toBe(29 * 3600 + 23 * 60);
    expect(parseTimetableTime('7:05:30')).toBe(7 * 3600 + 330);
    expect(parseTimetableTime(90_600)).toBe(90_600);
    expect(parseTimetableTime('90600')).toBe(90_600);
  });

  it('refuses what is not a time, naming the value', () => {
    expect(parseTimetableTime('7h05')).toEqual({ reason: expect.stringMatching(/"7h05"/) });
    expect(parseTimetableTime('07:60')).toHaveProperty('reason');
    expect(parseTimetableTime(-5)).toHaveProperty('reason');
    expect(parseTimetableTime(12.5)).toHaveProperty('reason');
    expect(parseTimetableTime('72:00')).toEqual({ reason: expect.stringMatching(/72 hours/) });
    expect(parseTimetableTime(true)).toHaveProperty('reason');
  });

  it('writes offsets as clock times counting on past 24', () => {
    expect(clockTimeOfOffset(0)).toBe('00:00');
    expect(clockTimeOfOffset(21 * 3600 + 40 * 60)).toBe('21:40');
    expect(clockTimeOfOffset(90_600)).toBe('25:10');
    expect(clockTimeOfOffset(90_659)).toBe('25:10');
  });
});

describe('toTimetableInput', () => {
  it('normalises a paired run: the first number is the train, every number is in allCodes', () => {
    const t = valid({
      ...timetable('g4340/37', '20260701', [
        ['汉口', undefined, '09:15'],
        ['襄阳东', '11:02', '11:05'],
        ['宜昌东', '12:40'],
      ]),
      allCodes: ['G4340', { prefix: 'G', number: 4337 }],
    });
    expect(t.trainCode).toBe('G4340');
    expect(t.allCodes).toEqual(['G4340', 'G4337']);
    expect(t.validFrom).toBe(serviceDayFromYmd('20260701'));
  });

  it('keeps the optional stop fields, with zero values where absent', () => {
    const t = valid(
      withStop(1, {
        wicket: '检票口3',
        platformNo: '12',
        distance: 295,
        stationTrainCode: 'd3125',
      }),
    );
    expect(t.stops[1]).toEqual({
      stationName: '南京南',
      arriveOffset: 23 * 3600 + 35 * 60,
      departOffset: 23 * 3600 + 39 * 60,
      stationTrainCode: 'D3125',
      wicket: '检票口3',
      platformNo: 12,
      distance: 295,
    });
    expect(t.stops[0]).toMatchObject({
      arriveOffset: null,
      wicket: '',
      platformNo: null,
      distance: null,
    });
    expect(t).toMatchObject({ internalCode: '', bureauName: '', passengerDepartment: '' });
  });

  it('refuses a bad field or stop, naming it', () => {
    expect(refusal({ ...D3125, trainCode: 'D31X5' })[0]).toBe('trainCode');
    expect(refusal({ ...D3125, trainCode: undefined })).toEqual([
      'trainCode',
      'trainCode: missing',
    ]);
    expect(refusal({ ...D3125, validFrom: '20260230' })[1]).toMatch(
      /^validFrom: invalid date "20260230"/,
    );
    expect(refusal({ ...D3125, validFrom: undefined })[0]).toBe('validFrom');
    expect(refusal({ ...D3125, stops: [] })[1]).toMatch(
      /^stops: a timetable needs at least two stops/,
    );
    expect(refusal({ ...D3125, allCodes: ['D3125', 'x'] })[0]).toBe('allCodes[1]');
    expect(refusal({ ...D3125, bureauName: 7 })[0]).toBe('bureauName');
    expect(refusal(withStop(2, { arrive: '8h' }))[0]).toBe('stops[2].arrive');
    expect(refusal(withStop(1, { stationName: ' ' }))).toEqual([
      'stops[1].stationName',
      'stops[1].stationName: missing',
    ]);
    expect(refusal(withStop(1, { platformNo: -1 }))[0]).toBe('stops[1].platformNo');
    expect(refusal(withStop(1, { distance: 'far' }))[0]).toBe('stops[1].distance');
    expect(refusal(withStop(1, { stationTrainCode: 'G1' }))[1]).toMatch(
      /G1 is not one of the train's numbers/,
    );
    expect(refusal('not an object')[0]).toBeNull();
  });

  it('refuses times that go back along the route: stops must be in running order', () => {
    // 00:05 after 23:39: written 24:05 it would be fine, but 00:05 goes back in time.
    const [field, reason] = refusal(withStop(2, { arrive: '00:05', depart: '00:07' }));
    expect(field).toBe('stops[2].arrive');
    expect(reason).toMatch(/00:05 is before 23:39 \(stops\[1\]\.depart\)/);
    expect(refusal(withStop(1, { arrive: '23:40', depart: '23:39' }))[0]).toBe('stops[1].depart');
  });

  it('needs a departure at the origin, an arrival at the terminus and a time at every stop', () => {
    expect(refusal(withStop(0, { depart: undefined }))[0]).toBe('stops[0].depart');
    expect(refusal(withStop(3, { arrive: undefined, depart: '25:10' }))[0]).toBe('stops[3].arrive');
    expect(refusal(withStop(1, { arrive: undefined, depart: undefined }))[0]).toBe('stops[1]');
  });
});

describe('timetable content', () => {
  it('hashes the content, not validFrom nor how times are written', () => {
    const a = valid(D3125);
    const later = valid({ ...D3125, validFrom: '20260901' });
    const seconds = valid(withStop(3, { arrive: 90_600 }));
    expect(timetableContentHash(later)).toBe(timetableContentHash(a));
    expect(timetableContentHash(seconds)).toBe(timetableContentHash(a));
    const moved = valid(withStop(3, { arrive: '25:11' }));
    expect(timetableContentHash(moved)).not.toBe(timetableContentHash(a));
    const platform = valid(withStop(1, { platformNo: 3 }));
    expect(timetableContentHash(platform)).not.toBe(timetableContentHash(a));
    expect(canonicalTimetableJson(a)).not.toContain('20260701');
  });

  it('starts at the origin’s departure and ends at the terminus’s arrival', () => {
    expect(timetableEnds(valid(D3125))).toEqual({
      startStation: '上海虹桥',
      endStation: '蚌埠南',
      startOffset: 21 * 3600 + 40 * 60,
      endOffset: 90_600,
    });
  });
});
