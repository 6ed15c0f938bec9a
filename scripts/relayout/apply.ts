/**
 * Applies scripts/relayout/path-map.ts to the working tree:
 *
 *   npx tsx scripts/relayout/apply.ts [--dry-run]
 *
 * 1. Every file under a mapped path (tracked or not, ignored ones aside) is `git mv`ed to its
 *    new place; files nobody mapped move with their folder.
 * 2. Module paths are rewritten by resolving them, not by replacing text: every relative
 *    specifier of an import, export, `import()`, `import('…')` type, `vi.mock` (and its kin),
 *    `import.meta.resolve` and `new URL('…', import.meta.url)` in the TypeScript and JavaScript
 *    files is resolved against the old tree (found with TypeScript's own parser) and written
 *    relative to the new places of both files.
 * 3. Paths from the repository root (`src/api/server.ts`, `dist/src/queue/worker-main.js`,
 *    `jobs/`, `../src/x.ts` from a docs page) in comments, strings, docs, package.json,
 *    Dockerfile, docker-compose.yml, .ci and ops files are mapped the same way; so are runs of
 *    path segments passed to a call (`path.join(root, 'src', 'templates', 'theme')`).
 * 4. The fixups of path-map.ts, then prettier on every file written (a shorter or longer import
 *    path can change how a line wraps).
 *
 * A second run finds nothing to move and every specifier already pointing where it resolves:
 * it changes nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { FIXUPS, PATH_MAP, type PathMove } from './path-map.js';

const posix = path.posix;
const CODE_EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs'];
const CODE_ROOTS = ['src', 'test', 'jobs', 'bench', 'scripts', 'bin'];
const ROOT_CODE_FILES = ['vitest.config.ts', 'eslint.config.js'];
const TEXT_ROOTS = ['docs', 'ops', '.ci'];
const ROOT_TEXT_FILES = [
  'README.md',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'Dockerfile',
  'docker-compose.yml',
];
/** This script and its map name the old paths on purpose. */
const SELF = 'scripts/relayout/';
/** vi's functions whose first argument is a module path. */
const VI_MODULE_FUNCTIONS = new Set([
  'mock',
  'doMock',
  'unmock',
  'doUnmock',
  'importActual',
  'importMock',
]);

interface Edit {
  start: number;
  end: number;
  text: string;
}

const dryRun = process.argv.includes('--dry-run');
const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' });
}

function checkMap(map: readonly PathMove[]): void {
  for (const a of map) {
    for (const b of map) {
      if (b.to === a.from || b.to.startsWith(`${a.from}/`)) {
        throw new Error(`path map: ${b.to} lies under ${a.from}; a second run would move it again`);
      }
    }
  }
}

/** Where `p` goes by one entry, or undefined; `src/x.ts` also names `src/x.js` and `src/x`. */
function byMove(move: PathMove, p: string): string | undefined {
  if (p === move.from) return move.to;
  if (p.startsWith(`${move.from}/`)) return move.to + p.slice(move.from.length);
  if (move.from.endsWith('.ts')) {
    const fromStem = move.from.slice(0, -'.ts'.length);
    const toStem = move.to.replace(/\.ts$/, '');
    for (const ext of ['.js', '']) if (p === fromStem + ext) return toStem + ext;
  }
  return undefined;
}

/** The entry that decides where `p` goes: the longest that names it. */
function moveOf(p: string): PathMove | undefined {
  let best: PathMove | undefined;
  for (const move of PATH_MAP) {
    if (byMove(move, p) !== undefined && (!best || move.from.length > best.from.length)) {
      best = move;
    }
  }
  return best;
}

/** The new place of a repository path (a file, a folder, with .ts or .js), or itself. */
function mapPath(p: string): string {
  const move = moveOf(p);
  return move ? byMove(move, p)! : p;
}

function listFiles(): string[] {
  return git('ls-files', '-z', '--cached', '--others', '--exclude-standard')
    .split('\0')
    .filter((f) => f !== '' && existsSync(path.join(root, f)));
}

function isCode(file: string): boolean {
  return CODE_EXTENSIONS.includes(posix.extname(file));
}

function underAny(file: string, roots: readonly string[]): boolean {
  return roots.some((r) => file.startsWith(`${r}/`));
}

function stringValue(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return undefined;
}

function isImportMetaUrl(node: ts.Node | undefined): boolean {
  return (
    !!node &&
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'url' &&
    ts.isMetaProperty(node.expression) &&
    node.expression.keywordToken === ts.SyntaxKind.ImportKeyword
  );
}

/** The string literals of a file that name a module or a file relative to it. */
function relativePathLiterals(source: ts.SourceFile): ts.Node[] {
  const found: ts.Node[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      found.push(node.moduleSpecifier);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      found.push(node.argument.literal);
    } else if (ts.isImportEqualsDeclaration(node)) {
      const ref = node.moduleReference;
      if (ts.isExternalModuleReference(ref)) found.push(ref.expression);
    } else if (ts.isCallExpression(node) && node.arguments[0]) {
      const callee = node.expression;
      const first = node.arguments[0];
      if (callee.kind === ts.SyntaxKind.ImportKeyword) found.push(first);
      else if (
        ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        callee.expression.text === 'vi' &&
        VI_MODULE_FUNCTIONS.has(callee.name.text)
      ) {
        found.push(first);
      } else if (
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === 'resolve' &&
        ts.isMetaProperty(callee.expression)
      ) {
        found.push(first);
      }
    } else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.[0] &&
      isImportMetaUrl(node.arguments[1])
    ) {
      found.push(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((n) => {
    const value = stringValue(n);
    return value !== undefined && (value.startsWith('./') || value.startsWith('../'));
  });
}

/** Runs of literal path segments starting with 'src' or 'jobs' in a call's arguments. */
function segmentRuns(source: ts.SourceFile): ts.Node[][] {
  const runs: ts.Node[][] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const args = node.arguments;
      for (let i = 0; i < args.length; i++) {
        const v = stringValue(args[i]!);
        if (v !== 'src' && v !== 'jobs') continue;
        const run = [args[i]!];
        while (i + 1 < args.length && /^[\w.-]+$/.test(stringValue(args[i + 1]!) ?? '/')) {
          run.push(args[++i]!);
        }
        if (run.length > 1) runs.push(run);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return runs;
}

const oldFiles = new Set<string>();
const oldDirs = new Set<string>();

function existsInOldTree(p: string): boolean {
  return oldFiles.has(p) || oldDirs.has(p);
}

/** The file or folder a relative path from `fromFile` names, as the old tree has it. */
function resolveOld(fromFile: string, spec: string): string | undefined {
  const target = posix.normalize(posix.join(posix.dirname(fromFile), spec));
  if (target.startsWith('..')) return undefined;
  const candidates = [target];
  const m = /\.(m|c)?js$/.exec(target);
  if (m) {
    const stem = target.slice(0, -m[0].length);
    const ts_ = `.${m[1] ?? ''}ts`;
    candidates.push(stem + ts_, `${stem}.tsx`);
  }
  return candidates.some(existsInOldTree) ? target : undefined;
}

function relativeSpec(fromFile: string, target: string): string {
  const rel = posix.relative(posix.dirname(fromFile), target);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

function quoteLike(original: string, value: string): string {
  const q = original[0]!;
  return `${q}${value}${q}`;
}

interface Stats {
  specifiers: number;
  rootPaths: number;
  unresolved: string[];
}

function codeEdits(file: string, text: string, stats: Stats): Edit[] {
  const kind = /\.(m|c)?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const newFile = mapPath(file);
  const edits: Edit[] = [];
  const taken: Array<[number, number]> = [];
  for (const lit of relativePathLiterals(source)) {
    const spec = stringValue(lit)!;
    const start = lit.getStart(source);
    taken.push([start, lit.end]);
    const target = resolveOld(file, spec);
    if (!target) {
      // Pointing at nothing in the tree (a built file, a generated one): left alone, but said.
      if (mapPath(file) !== file) stats.unresolved.push(`${file}: ${spec}`);
      continue;
    }
    const next = relativeSpec(newFile, mapPath(target));
    if (next === spec) continue;
    edits.push({ start, end: lit.end, text: quoteLike(lit.getText(source), next) });
    stats.specifiers++;
  }
  for (const run of segmentRuns(source)) {
    const joined = run.map((n) => stringValue(n)!).join('/');
    const mapped = mapPath(joined);
    if (mapped === joined) continue;
    const start = run[0]!.getStart(source);
    const end = run[run.length - 1]!.end;
    const q = run[0]!.getText(source)[0]!;
    const segments = mapped.split('/').map((s) => `${q}${s}${q}`);
    edits.push({ start, end, text: segments.join(', ') });
    taken.push([start, end]);
    stats.rootPaths++;
  }
  for (const edit of rootPathEdits(file, text)) {
    if (taken.some(([s, e]) => edit.start < e && edit.end > s)) continue;
    edits.push(edit);
    stats.rootPaths++;
  }
  return edits;
}

/**
 * Paths from the repository root in any text: `src/…` or `jobs/…`, optionally after `dist/`,
 * `/app/` (the image's WORKDIR), `./`, or as many `../` as lead from this file to the root.
 */
const ROOT_PATH = /(?<![\w.\-/@])((?:\.\.\/)+|\.\/|\/app\/)?(dist\/)?((?:src|jobs)\/[\w.\-/]*)/g;

function rootPathEdits(file: string, text: string): Edit[] {
  const edits: Edit[] = [];
  const depth = posix.dirname(file) === '.' ? 0 : posix.dirname(file).split('/').length;
  for (const m of text.matchAll(ROOT_PATH)) {
    const prefix = m[1] ?? '';
    if (prefix.startsWith('..') && prefix.length / 3 !== depth) continue;
    let p = m[3]!;
    let tail = '';
    while (/[./]$/.test(p)) {
      tail = p.slice(-1) + tail;
      p = p.slice(0, -1);
    }
    const mapped = mapPath(p);
    if (mapped === p) continue;
    const start = m.index + prefix.length + (m[2] ?? '').length;
    edits.push({ start, end: start + m[3]!.length, text: mapped + tail });
  }
  return edits;
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) {
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  }
  return out;
}

function removeEmptyDirs(dir: string): void {
  const abs = path.join(root, dir);
  if (!existsSync(abs)) return;
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    if (entry.isDirectory()) removeEmptyDirs(posix.join(dir, entry.name));
  }
  if (readdirSync(abs).length === 0) rmdirSync(abs);
}

async function main(): Promise<void> {
  checkMap(PATH_MAP);
  const files = listFiles();
  const tracked = new Set(git('ls-files', '-z').split('\0'));
  for (const f of files) {
    oldFiles.add(f);
    for (let d = posix.dirname(f); d !== '.'; d = posix.dirname(d)) oldDirs.add(d);
  }

  // What moves.
  const moves = files
    .filter((f) => !f.startsWith(SELF))
    .map((f) => ({ from: f, to: mapPath(f) }))
    .filter((m) => m.to !== m.from);
  for (const m of moves) {
    if (oldFiles.has(m.to)) throw new Error(`cannot move ${m.from}: ${m.to} exists`);
  }

  // What is rewritten, computed against the old tree.
  const stats: Stats = { specifiers: 0, rootPaths: 0, unresolved: [] };
  const rewrites = new Map<string, string>();
  for (const file of files) {
    if (file.startsWith(SELF)) continue;
    const code = isCode(file) && (underAny(file, CODE_ROOTS) || ROOT_CODE_FILES.includes(file));
    const textual =
      underAny(file, TEXT_ROOTS) ||
      ROOT_TEXT_FILES.includes(file) ||
      (file.endsWith('.md') && underAny(file, CODE_ROOTS));
    if (!code && !textual) continue;
    const text = readFileSync(path.join(root, file), 'utf8');
    const edits = code ? codeEdits(file, text, stats) : rootPathEdits(file, text);
    if (!code) stats.rootPaths += edits.length;
    if (edits.length > 0) rewrites.set(mapPath(file), applyEdits(text, edits));
  }

  const movedFolders = new Map<string, number>();
  for (const m of moves) {
    const entry = moveOf(m.from)!;
    const key = `${entry.from} -> ${entry.to}`;
    movedFolders.set(key, (movedFolders.get(key) ?? 0) + 1);
  }
  console.log(`relayout${dryRun ? ' (dry run)' : ''}: ${moves.length} files to move`);
  for (const [key, n] of [...movedFolders].sort()) console.log(`  ${key}  (${n} files)`);

  if (!dryRun) {
    for (const m of moves) {
      mkdirSync(path.join(root, posix.dirname(m.to)), { recursive: true });
      if (tracked.has(m.from)) git('mv', m.from, m.to);
      else renameSync(path.join(root, m.from), path.join(root, m.to));
    }
    for (const m of PATH_MAP) removeEmptyDirs(m.from);
    for (const [file, text] of rewrites) writeFileSync(path.join(root, file), text);
  }

  const fixed: string[] = [];
  for (const fix of FIXUPS) {
    const abs = path.join(root, fix.file);
    const current = rewrites.get(fix.file) ?? (existsSync(abs) ? readFileSync(abs, 'utf8') : '');
    if (!current.includes(fix.from)) continue;
    const next = current.split(fix.from).join(fix.to);
    rewrites.set(fix.file, next);
    if (!dryRun) writeFileSync(abs, next);
    fixed.push(`${fix.file}: ${JSON.stringify(fix.from)} -> ${JSON.stringify(fix.to)}`);
  }

  // Prettier over what was written: a path's new length can change how its line wraps.
  const prettier = await import('prettier');
  let formatted = 0;
  if (!dryRun) {
    for (const file of rewrites.keys()) {
      const abs = path.join(root, file);
      const info = await prettier.getFileInfo(abs, {
        ignorePath: path.join(root, '.prettierignore'),
      });
      if (info.ignored || !info.inferredParser) continue;
      const options = (await prettier.resolveConfig(abs)) ?? {};
      const text = readFileSync(abs, 'utf8');
      const pretty = await prettier.format(text, { ...options, filepath: abs });
      if (pretty !== text) {
        writeFileSync(abs, pretty);
        formatted++;
      }
    }
  }

  console.log(
    `  ${stats.specifiers} module paths and ${stats.rootPaths} root paths rewritten in ` +
      `${rewrites.size} files${formatted ? ` (${formatted} reformatted by prettier)` : ''}`,
  );
  for (const f of fixed) console.log(`  fixup ${f}`);
  for (const u of stats.unresolved) console.log(`  left alone (resolves to nothing): ${u}`);
  if (moves.length === 0 && rewrites.size === 0) console.log('  nothing to do: already applied');
}

await main();
