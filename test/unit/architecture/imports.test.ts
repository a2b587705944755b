import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOT_ORDER } from './bot-order.js';
import { SHARED_ORDER } from './shared-order.js';
import { WORKER_ORDER } from './worker-order.js';

/**
 * The layout's rules (README "Code map"), checked on the source: each process imports only itself
 * and shared/, shared/ imports none of them, the folders of shared/ import only the folders below
 * them in SHARED_ORDER (contract → infra → accounts → meetings → transcripts → recordings → webhooks
 * → bots → workers; why this order: shared-order.ts), and no module imports itself back through
 * others.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const SOURCE_FOLDERS = [
  'api',
  'worker',
  'bot',
  'shared',
  'simulator',
  'scripts',
  'migrations',
  'bench',
  'docker',
  'web',
];
/** TypeScript and JavaScript modules of every flavour (the simulator's pages and a few tools are plain JS). */
const MODULE_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]|\b(?:import|require)\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Build output and installed packages inside a folder (docker/.build's staged bot, node_modules) are not the project's source. */
const NOT_SOURCE = /(^|\/)(node_modules|\.[^/]+)(\/|$)/;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && MODULE_FILE.test(entry.name) && !/\.d\.[mc]?ts$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => !NOT_SOURCE.test(file));
}

const files = new Set(SOURCE_FOLDERS.flatMap(sourceFiles));

/**
 * The module an import names: the file itself, or the TypeScript source of a `.js`/`.mjs`/`.cjs`
 * specifier (NodeNext style); an import of the build (`dist/…`) counts as one of its source.
 */
function moduleOf(path: string): string {
  const source = path.replace(/^dist\//, '');
  if (files.has(source)) return source;
  const typescript = source
    .replace(/\.js$/, '.ts')
    .replace(/\.mjs$/, '.mts')
    .replace(/\.cjs$/, '.cts');
  if (files.has(typescript)) return typescript;
  const jsx = source.replace(/\.js$/, '.tsx');
  return files.has(jsx) ? jsx : source;
}

function importsOf(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  return [...source.matchAll(IMPORT)].map((match) => {
    const target = resolve(dirname(join(ROOT, file)), (match[1] ?? match[2] ?? match[3])!);
    return moduleOf(relative(ROOT, target));
  });
}

const graph = new Map([...files].map((file) => [file, importsOf(file)]));
const topFolder = (file: string) => file.split('/')[0]!;
/** The feature folder of a file in shared/ (undefined elsewhere). */
const sharedFolder = (file: string) => (topFolder(file) === 'shared' ? file.split('/')[1] : undefined);

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
function importCycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || graph.get(file)?.includes(file)) cycles.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** Every import of shared/ that points up SHARED_ORDER (or into a folder the order does not place). */
function backwardSharedImports(): string[] {
  return [...graph].flatMap(([file, imports]) => {
    const from = sharedFolder(file);
    if (from === undefined) return [];
    return imports
      .filter((target) => {
        const to = sharedFolder(target);
        if (to === undefined || to === from) return false;
        const order: readonly string[] = SHARED_ORDER;
        const [fromRank, toRank] = [order.indexOf(from), order.indexOf(to)];
        return fromRank < 0 || toRank < 0 || toRank > fromRank;
      })
      .map((target) => `${file} → ${target}`);
  });
}

/** The part of worker/ a file is in: its folder, or the file itself at worker/'s root (undefined elsewhere). */
const workerPart = (file: string) => (topFolder(file) === 'worker' ? file.split('/')[1] : undefined);

/** Every import inside worker/ that points up WORKER_ORDER (or into a part the order does not place). */
function backwardWorkerImports(): string[] {
  const order: readonly string[] = WORKER_ORDER;
  return [...graph].flatMap(([file, imports]) => {
    const from = workerPart(file);
    if (from === undefined) return [];
    return imports
      .filter((target) => {
        const to = workerPart(target);
        if (to === undefined || to === from) return false;
        const [fromRank, toRank] = [order.indexOf(from), order.indexOf(to)];
        return fromRank < 0 || toRank < 0 || toRank > fromRank;
      })
      .map((target) => `${file} → ${target}`);
  });
}

/** The part of bot/ a file is in: its folder, or the file itself at bot/'s root (undefined elsewhere). */
const botPart = (file: string) => (topFolder(file) === 'bot' ? file.split('/')[1] : undefined);

/** Every import inside bot/ that points up BOT_ORDER (or into a part the order does not place). */
function backwardBotImports(): string[] {
  const order: readonly string[] = BOT_ORDER;
  return [...graph].flatMap(([file, imports]) => {
    const from = botPart(file);
    if (from === undefined) return [];
    return imports
      .filter((target) => {
        const to = botPart(target);
        if (to === undefined || to === from) return false;
        const [fromRank, toRank] = [order.indexOf(from), order.indexOf(to)];
        return fromRank < 0 || toRank < 0 || toRank > fromRank;
      })
      .map((target) => `${file} → ${target}`);
  });
}

describe('module layout', () => {
  it('reads the whole source tree, .mjs and plain .js files included', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
    for (const folder of ['bench', 'scripts'])
      expect([...graph.keys()].some((file) => topFolder(file) === folder)).toBe(true);
    expect(graph.get('bench/chromium-floor.mjs')).toContain('shared/contract/bot-config.ts');
    expect([...graph.keys()].some((file) => file.endsWith('.js'))).toBe(true);
  });

  it('has no import cycle', () => {
    expect(importCycles()).toEqual([]);
  });

  it('keeps shared/ free of the processes: it imports nothing from api/, worker/, bot/ or simulator/', () => {
    const processes = new Set(['api', 'worker', 'bot', 'simulator']);
    const offenders = [...graph].flatMap(([file, imports]) =>
      topFolder(file) === 'shared'
        ? imports.filter((target) => processes.has(topFolder(target))).map((target) => `${file} → ${target}`)
        : [],
    );
    expect(offenders).toEqual([]);
  });

  it('lets api/, worker/ and bot/ import only themselves and shared/', () => {
    const processes = new Set(['api', 'worker', 'bot']);
    const offenders = [...graph].flatMap(([file, imports]) =>
      processes.has(topFolder(file))
        ? imports
            .filter((target) => ![topFolder(file), 'shared'].includes(topFolder(target)))
            .map((target) => `${file} → ${target}`)
        : [],
    );
    expect(offenders).toEqual([]);
  });

  it('keeps the web app apart: web/ imports only itself (it talks to the public API) and nothing imports web/', () => {
    expect(graph.get('web/src/main.tsx')).toContain('web/src/views/App.tsx');
    const offenders = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => (topFolder(file) === 'web') !== (topFolder(target) === 'web'))
        .map((target) => `${file} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('imports nothing from bench/ or scripts/ outside them: they are entry points', () => {
    const entryPoints = new Set(['bench', 'scripts']);
    const offenders = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => entryPoints.has(topFolder(target)) && topFolder(target) !== topFolder(file))
        .map((target) => `${file} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('places every folder of shared/ in the feature order', () => {
    const folders = new Set([...graph.keys()].map(sharedFolder).filter((folder) => folder !== undefined));
    expect([...folders].sort()).toEqual([...SHARED_ORDER].sort());
  });

  it(`keeps one direction inside shared/: ${SHARED_ORDER.join(' → ')}, each importing only those before it`, () => {
    expect(backwardSharedImports()).toEqual([]);
  });

  it('places every part of worker/ (a folder, or a file at its root) in the worker order', () => {
    const parts = new Set([...graph.keys()].map(workerPart).filter((part) => part !== undefined));
    expect([...parts].sort()).toEqual([...WORKER_ORDER].sort());
  });

  it(`keeps one direction inside worker/: ${WORKER_ORDER.join(' → ')}, each importing only those before it`, () => {
    expect(backwardWorkerImports()).toEqual([]);
  });

  it('places every part of bot/ (a folder, or a file at its root) in the bot order', () => {
    const parts = new Set([...graph.keys()].map(botPart).filter((part) => part !== undefined));
    expect([...parts].sort()).toEqual([...BOT_ORDER].sort());
  });

  it('keeps one direction inside bot/: each part imports only the parts before it in BOT_ORDER (bot-order.ts)', () => {
    expect(backwardBotImports()).toEqual([]);
  });

  it('keeps the bot image small: bot/ reaches only the contract and infrastructure of shared/', () => {
    const allowed = /^shared\/(contract|infra)\//;
    const reached = new Set<string>();
    const pending = [...graph.keys()].filter((file) => topFolder(file) === 'bot');
    while (pending.length > 0) {
      const file = pending.pop()!;
      for (const target of graph.get(file) ?? []) {
        if (reached.has(target) || topFolder(target) !== 'shared') continue;
        reached.add(target);
        pending.push(target);
      }
    }
    expect([...reached].filter((file) => !allowed.test(file))).toEqual([]);
  });
});
