import type { ApiApp } from '../../../src/http/api/app.js';

export interface Answer {
  url: string;
  startedAt: number;
  endedAt: number;
  status: number;
  /** The envelope's error code, when there is one. */
  code?: string;
  retryAfter?: string;
}

/**
 * A steady load on the app: `clients` callers, each sending its next request (round-robin over
 * `urls`) as soon as the previous one is answered, until stop(). Every answer is kept.
 */
export function startLoad(app: ApiApp, urls: readonly string[], clients = 4) {
  const answers: Answer[] = [];
  let running = true;
  let next = 0;
  const client = async () => {
    while (running) {
      const url = urls[next++ % urls.length]!;
      const startedAt = Date.now();
      const res = await app.inject({ method: 'GET', url });
      const answer: Answer = { url, startedAt, endedAt: Date.now(), status: res.statusCode };
      if (res.statusCode >= 400 && String(res.headers['content-type']).includes('json')) {
        answer.code = (res.json() as { error?: { code?: string } }).error?.code;
      }
      const retryAfter = res.headers['retry-after'];
      if (retryAfter !== undefined) answer.retryAfter = String(retryAfter);
      answers.push(answer);
      // Let timers run between requests: answers refused at once (a database known to be
      // down) settle in microtasks alone, and a loop of them would starve everything else.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const done = Promise.all(Array.from({ length: clients }, client));
  return {
    answers,
    async stop(): Promise<Answer[]> {
      running = false;
      await done;
      return answers;
    },
  };
}

/** Milliseconds an answer took. */
export const took = (a: Answer) => a.endedAt - a.startedAt;

/**
 * The longest answer, in ms (0 for none): a loop, since a fast API gives more answers in a
 * run than Math.max(...spread) can take as arguments.
 */
export function longest(answers: readonly Answer[]): number {
  let most = 0;
  for (const a of answers) most = Math.max(most, took(a));
  return most;
}

/** Resolves after ms (the length of a cut is the fault's definition, not a wait for a condition). */
export const hold = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Prints a fault test's figures when asked (EMUTRACK_FAULT_FIGURES=1): a passing run shows only
 * the runner's summary, and the figures are there for whoever studies a fault's behaviour.
 */
export function printFigures(title: string, figures: Record<string, unknown>): void {
  if (process.env.EMUTRACK_FAULT_FIGURES !== '1') return;
  const lines = Object.entries(figures).map(([k, v]) => `  ${k}: ${String(v)}`);
  process.stdout.write(`\n[fault] ${title}\n${lines.join('\n')}\n`);
}
