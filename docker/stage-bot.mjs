// Stages what the bot container needs at run time into <out>/app (the bot image's /app):
//   - dist/bot/** and the dist/ files they import (found by esbuild, which follows the imports),
//   - package.json with "type": "module",
//   - node_modules holding only the packages the bot imports and their dependencies, without
//     type declarations, source maps, TypeScript sources and docs.
// The tsc output is copied as it is (not bundled), so the entrypoint stays `node dist/bot/main.js`
// and modules loaded by path at run time still find their neighbours.
//
//   node docker/stage-bot.mjs docker/.build/bot
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

const root = process.cwd();
const out = resolve(process.argv[2] ?? 'docker/.build/bot');
const app = join(out, 'app');
const botDir = join(root, 'dist', 'bot');

// Never needed by a bot that drives Chromium: Playwright's trace viewer, recorder and HTML report UIs.
const prunedPaths = new Set(['playwright-core/lib/vite']);
const prunedFile = /(\.d\.[cm]?ts|\.ts|\.map|\.md|\.markdown)$/i;
const prunedDirs = new Set(['.github']);

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Node's lookup: <dir>/node_modules/<name>, then the same in every parent up to the project root. */
function findPackage(name, fromDir) {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === dirname(dir)) return undefined;
    dir = dirname(dir);
  }
}

if (!existsSync(botDir)) {
  console.error('dist/bot is missing: run `npm run build` first');
  process.exit(1);
}

// Every module of the bot is an entry point, so files it loads by computed path are traced too.
const result = await build({
  entryPoints: jsFiles(botDir),
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  write: false,
  metafile: true,
  outdir: join(out, 'unused'),
  logLevel: 'error',
});

const ownFiles = Object.keys(result.metafile.inputs).filter((path) => path.startsWith('dist/'));
const imported = new Set();
for (const output of Object.values(result.metafile.outputs)) {
  for (const { path, external } of output.imports) {
    if (external && !builtins.has(path) && !path.startsWith('.') && !path.startsWith('/')) {
      imported.add(packageName(path));
    }
  }
}

rmSync(out, { recursive: true, force: true });
mkdirSync(app, { recursive: true });
for (const file of ownFiles) {
  mkdirSync(dirname(join(app, file)), { recursive: true });
  cpSync(join(root, file), join(app, file));
}
writeFileSync(
  join(app, 'package.json'),
  `${JSON.stringify({ name: 'meetbot-bot', private: true, type: 'module' }, null, 2)}\n`,
);

// The dependency closure, resolved the way Node resolves it (nested node_modules first).
const copied = new Set();
const queue = [...imported].map((name) => ({ name, fromDir: root, importer: 'dist/bot' }));
while (queue.length > 0) {
  const { name, fromDir, importer } = queue.shift();
  const dir = findPackage(name, fromDir);
  if (!dir) {
    console.error(`package ${name} (imported by ${importer}) is not installed: run \`npm install\``);
    process.exit(1);
  }
  if (copied.has(dir)) continue;
  copied.add(dir);
  const rel = relative(root, dir);
  cpSync(dir, join(app, rel), {
    recursive: true,
    filter: (source) => {
      const inside = relative(dir, source);
      if (inside.split(sep)[0] === 'node_modules') return false; // nested packages come through the closure
      const fromModules = relative(join(root, 'node_modules'), source).split(sep).join('/');
      if (prunedPaths.has(fromModules)) return false;
      const base = source.split(sep).pop();
      if (prunedDirs.has(base)) return false;
      return !(prunedFile.test(base) && statSync(source).isFile());
    },
  });
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const optional = new Set(Object.keys(manifest.optionalDependencies ?? {}));
  const peerOptional = manifest.peerDependenciesMeta ?? {};
  const deps = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...optional,
    ...Object.keys(manifest.peerDependencies ?? {}).filter((peer) => !peerOptional[peer]?.optional),
  ];
  for (const dep of new Set(deps)) {
    if (optional.has(dep) && !findPackage(dep, dir)) continue; // optional and not installed here
    queue.push({ name: dep, fromDir: dir, importer: rel });
  }
}

function size(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((total, name) => total + size(join(path, name)), 0);
}
const packages = [...copied].map((dir) => relative(join(root, 'node_modules'), dir)).sort();
console.log(
  `staged ${ownFiles.length} files of dist/ and ${packages.length} packages (${packages.join(', ')}): ` +
    `${(size(app) / 1e6).toFixed(1)} MB in ${relative(root, app)}`,
);
