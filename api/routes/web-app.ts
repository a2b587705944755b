import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from '@koa/router';
import { AppError } from '../../shared/infra/errors.js';
import type { AppState } from '../context.js';

/** Where the web app is served: the SPA's routes live after a `#`, so the server only knows these. */
export const WEB_APP_PATH = '/app/';

/**
 * The folder Vite builds the web app into (web/vite.config.ts): `dist/web`, beside the compiled API
 * (`dist/api/routes/web-app.js` → `dist/web`) or, when the API runs from its TypeScript source
 * (tests, tsx), under the repository's `dist/`.
 */
export function defaultWebAppDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const fromSource = import.meta.url.endsWith('.ts');
  return path.resolve(here, fromSource ? '../../dist/web' : '../../web');
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * The page's Content-Security-Policy: its own scripts, styles and API only. No inline script or
 * style element, no other origin, no frames, no plugins. Recordings play from their `media_url`, which
 * is this origin or PUBLIC_BASE_URL's. Downloads (exports) are blob: links the page makes itself.
 */
export function webAppContentSecurityPolicy(publicBaseUrl: string | undefined): string {
  const publicOrigin = publicBaseUrl ? ` ${new URL(publicBaseUrl).origin}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `media-src 'self'${publicOrigin}`,
    `connect-src 'self'${publicOrigin}`,
    "font-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

interface BuiltFile {
  body: Buffer;
  type: string;
}

/** The built app's files, read once: index.html and the hashed assets (names only, no subfolders). */
async function loadBuild(
  dir: string,
): Promise<{ index: Buffer; assets: Map<string, BuiltFile> } | undefined> {
  const index = await readFile(path.join(dir, 'index.html')).catch(() => undefined);
  if (!index) return undefined;
  const assets = new Map<string, BuiltFile>();
  const names = await readdir(path.join(dir, 'assets')).catch(() => [] as string[]);
  for (const name of names) {
    const type = CONTENT_TYPES[path.extname(name)];
    if (!type) continue;
    assets.set(name, { body: await readFile(path.join(dir, 'assets', name)), type });
  }
  return { index, assets };
}

/**
 * GET /app/ (the web app's page) and /app/assets/* (its hashed scripts and styles, cached for a
 * year: a new build has new names). Every answer carries the strict policy; the page is never
 * cached, so a new build is picked up on the next load. Without a build: 503 saying how to make one.
 */
export function webAppRouter(options: { dir?: string; publicBaseUrl: string | undefined }): Router<AppState> {
  const router = new Router<AppState>();
  const dir = options.dir ?? defaultWebAppDir();
  const policy = webAppContentSecurityPolicy(options.publicBaseUrl);
  let build: ReturnType<typeof loadBuild> | undefined;
  const current = async () => {
    build ??= loadBuild(dir);
    const loaded = await build;
    // Not built yet when first asked: look again next time rather than keeping the absence.
    if (!loaded) build = undefined;
    return loaded;
  };
  const secure = (ctx: { set(fields: Record<string, string>): void }) =>
    ctx.set({
      'Content-Security-Policy': policy,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });

  // Declared without its slash, this route answers /app and /app/ both; /app is sent to /app/.
  router.get(WEB_APP_PATH.slice(0, -1), async (ctx) => {
    if (ctx.path !== WEB_APP_PATH) {
      ctx.status = 308;
      // Relative, so it holds under a proxy's path prefix too.
      ctx.redirect('app/');
      return;
    }
    const loaded = await current();
    if (!loaded) throw new AppError(503, 'The web app is not built: run `npm run build`');
    secure(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = loaded.index;
  });
  router.get(`${WEB_APP_PATH}assets/:file`, async (ctx) => {
    const file = (await current())?.assets.get(ctx.params.file ?? '');
    if (!file) return;
    secure(ctx);
    ctx.type = file.type;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = file.body;
  });
  return router;
}
