import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Router } from '@koa/router';
import type { AppState } from '../context.js';

const require = createRequire(import.meta.url);
const SWAGGER_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;
const CONTENT_TYPES: Record<(typeof SWAGGER_ASSETS)[number], string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Meetbot API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });`;

/** /openapi.json and a docs page rendering it, served from the installed swagger-ui-dist (no CDN). */
export function docsRouter(document: () => Record<string, unknown>): Router<AppState> {
  const router = new Router<AppState>();
  const assetDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Promise<Buffer>>();

  router.get('/openapi.json', (ctx) => {
    ctx.body = document();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
    );
    ctx.body = DOCS_PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = DOCS_INIT;
  });
  router.get('/docs/assets/:file', async (ctx) => {
    const file = SWAGGER_ASSETS.find((name) => name === ctx.params.file);
    if (!file) return;
    if (!assets.has(file)) assets.set(file, readFile(path.join(assetDir, file)));
    ctx.type = CONTENT_TYPES[file];
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = await assets.get(file);
  });
  return router;
}
