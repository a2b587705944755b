import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layout's rules (README "Code map"), checked on the source: each process imports only itself
 * and shared/, shared/ imports none of them, and no module imports itself back through others.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const SOURCE_FOLDERS = ['api', 'worker', 'bot', 'shared', 'simulator', 'scripts', 'migrations', 'bench'];
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

function importsOf(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  return [...source.matchAll(IMPORT)].map((match) => {
    const target = resolve(dirname(join(ROOT, file)), (match[1] ?? match[2])!);
    return relative(ROOT, target).replace(/\.js$/, '.ts');
  });
}

const graph = new Map(SOURCE_FOLDERS.flatMap(sourceFiles).map((file) => [file, importsOf(file)]));
const topFolder = (file: string) => file.split('/')[0]!;

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

describe('module layout', () => {
  it('reads the whole source tree', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
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

  it('keeps the bot image small: bot/ reaches only the contract and infrastructure of shared/', () => {
    const allowed = /^shared\/(contract|infra|meetings\/(platforms|status))\b/;
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
