import { readFileSync } from 'node:fs';
import path from 'node:path';

/** What a test needs of the Dockerfile's final stage (the image that runs). */
export interface RuntimeStage {
  from: string;
  workdir: string;
  user: string;
  env: Record<string, string>;
  /** Directories a RUN line chowns to the runtime user. */
  ownedByUser: string[];
  /** Destinations of COPY lines, relative to the workdir (or absolute). */
  copied: { from: string; to: string; stage?: string }[];
  cmd: string[];
  healthcheck: string[] | undefined;
  args: Record<string, string>;
}

/** Joins continuation lines and drops comments. */
function instructions(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

export function readRuntimeStage(root: string): RuntimeStage {
  const lines = instructions(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
  const args: Record<string, string> = {};
  let stage: RuntimeStage | undefined;
  for (const line of lines) {
    const [keyword, ...rest] = line.split(/\s+/);
    const value = rest.join(' ');
    const upper = keyword!.toUpperCase();
    if (upper === 'ARG' && !stage) {
      const [k, v] = value.split('=');
      args[k!] = v ?? '';
    } else if (upper === 'FROM') {
      const from = value.split(/\s+/)[0]!.replace(/\$\{(\w+)\}/g, (_, k: string) => args[k] ?? '');
      stage = {
        from,
        workdir: '/',
        user: 'root',
        env: {},
        ownedByUser: [],
        copied: [],
        cmd: [],
        healthcheck: undefined,
        args,
      };
    } else if (!stage) {
      continue;
    } else if (upper === 'WORKDIR') stage.workdir = value;
    else if (upper === 'USER') stage.user = value;
    else if (upper === 'ENV') {
      for (const m of value.matchAll(/(\w+)=(\S+)/g)) stage.env[m[1]!] = m[2]!;
    } else if (upper === 'RUN') {
      const chown = /chown\s+node(?::node)?\s+([^&;]+)/.exec(value);
      if (chown) stage.ownedByUser.push(...chown[1]!.trim().split(/\s+/));
    } else if (upper === 'COPY') {
      const parts = value.split(/\s+/);
      const stageFlag = parts.find((p) => p.startsWith('--from='));
      const paths = parts.filter((p) => !p.startsWith('--'));
      stage.copied.push({
        from: paths[0]!,
        to: paths[paths.length - 1]!,
        ...(stageFlag ? { stage: stageFlag.slice('--from='.length) } : {}),
      });
    } else if (upper === 'CMD') stage.cmd = JSON.parse(value) as string[];
    else if (upper === 'HEALTHCHECK') {
      const json = value.slice(value.indexOf('CMD') + 3).trim();
      stage.healthcheck = JSON.parse(json) as string[];
    }
  }
  if (!stage) throw new Error('Dockerfile has no FROM');
  return stage;
}
