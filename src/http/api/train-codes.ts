import { splitTrainCode, type TrainCode } from '../../domain/trains/train-code.js';

/** A stored (normalised) train number as the API's TrainCode; undefined when it does not parse. */
export function trainCodeOf(code: string): TrainCode | undefined {
  try {
    return splitTrainCode(code);
  } catch {
    return undefined;
  }
}

/** Stored train numbers as TrainCodes, in order; any that do not parse are left out. */
export function trainCodesOf(codes: readonly string[]): TrainCode[] {
  const out: TrainCode[] = [];
  for (const code of codes) {
    const parsed = trainCodeOf(code);
    if (parsed) out.push(parsed);
  }
  return out;
}
