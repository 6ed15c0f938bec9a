import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import {
  generateDataset,
  type GenerateOptions,
  type GeneratedManifest,
} from '../../src/generator/write-dataset.js';

const made: string[] = [];

/** Temporary directories removed after the test file. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-gen-test-'));
  made.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

export interface Generated {
  dir: string;
  manifest: GeneratedManifest;
}

export async function generate(options: Omit<GenerateOptions, 'out'>): Promise<Generated> {
  const dir = await tempDir();
  const manifest = await generateDataset({ ...options, out: dir });
  return { dir, manifest };
}

export async function readLines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return text.split('\n').filter((l) => l !== '');
}

export async function readNdjson<T>(file: string): Promise<T[]> {
  return (await readLines(file)).map((l) => JSON.parse(l) as T);
}

/** Every file under dir, relative paths, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

export interface TimetableLine {
  trainCode: string;
  allCodes: string[];
  internalCode: string;
  bureauCode: string;
  bureauName: string;
  trainDepartment: string;
  passengerDepartment: string;
  validFrom: string;
  stops: { stationName: string; arrive?: string; depart?: string; distance: number }[];
}

export interface CirculationLine {
  circulationId: string;
  cycleDays: number;
  coupled: boolean;
  model: string;
  units: string[];
  days: string[][];
}

export interface AssignmentLine {
  serviceDay: number;
  trainCode: string;
  emuCode: string;
  coupled: boolean;
}

export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

export async function readDataset(dir: string) {
  const timetables = await readNdjson<TimetableLine>(path.join(dir, 'timetables.ndjson'));
  const circulations = JSON.parse(
    await readFile(path.join(dir, 'truth/circulations.json'), 'utf8'),
  ) as CirculationLine[];
  const assignments = await readNdjson<AssignmentLine>(path.join(dir, 'truth/assignments.ndjson'));
  const observationFiles = (await readdir(path.join(dir, 'observations'))).sort();
  return {
    timetables,
    byWritten: new Map(timetables.map((t) => [t.trainCode, t])),
    circulations,
    assignments,
    observationFiles,
  };
}
