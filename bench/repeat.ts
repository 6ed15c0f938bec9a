/** The median of some figures (the upper middle one for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of nothing');
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/**
 * Runs a noisy measurement `times` times in a row and gives every figure and their median: on
 * a machine shared with other work, one run says little, the median of a few says more.
 */
export async function repeatMeasure(
  times: number,
  measure: (round: number) => Promise<number>,
): Promise<{ runs: number[]; median: number }> {
  const runs: number[] = [];
  for (let round = 0; round < times; round++) runs.push(await measure(round));
  return { runs, median: median(runs) };
}
