import type { AddressInfo } from 'node:net';
import { Router } from '@koa/router';
import Koa from 'koa';
import { findPagesDir, readAsset } from './assets.js';
import { controlRouter } from './control.js';
import { errorBodies } from './http.js';
import { type OpenStreams, pageRouter } from './page-api.js';
import { MeetingRegistry } from './registry.js';
import { SpeechSynthesizer } from './voices.js';

export interface SimulatorOptions {
  /** 127.0.0.1 unless told otherwise: the simulator has no authentication. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where synthesized speech is cached; a folder in the OS temp dir by default. */
  speechCacheDir?: string;
  /** The flite binary that speaks scripted lines: `flite` on PATH by default. */
  speechCommand?: string;
  log?: (message: string, error?: unknown) => void;
}

export interface Simulator {
  /** Origin of the simulator, e.g. http://127.0.0.1:4100 (no trailing slash). */
  url: string;
  registry: MeetingRegistry;
  close(): Promise<void>;
}

export async function createSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((message, error) => console.error(`[simulator] ${message}`, error ?? ''));
  const pagesDir = findPagesDir();
  let origin = '';
  const registry = new MeetingRegistry(
    () => origin,
    new SpeechSynthesizer(options.speechCacheDir, options.speechCommand),
  );
  const streams: OpenStreams = new Set();

  const app = new Koa();
  // Pages closing their event streams is how the simulator notices them leaving, not a failure.
  const quiet = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);
  app.on('error', (error: NodeJS.ErrnoException) => {
    if (!quiet.has(error.code ?? '')) log('server error', error);
  });
  app.use(errorBodies((error) => log('request failed', error)));
  for (const router of [controlRouter(registry), pageRouter(registry, streams), pagesRouter(pagesDir)]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }

  const server = app.listen(options.port ?? 0, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url: origin,
    registry,
    close: async () => {
      registry.dispose();
      for (const stream of streams) stream.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The meeting pages at the platforms' URL shapes, their assets, and the dashboard. */
function pagesRouter(pagesDir: string): Router {
  const router = new Router();
  const sendFile = async (ctx: Koa.Context, relativePath: string) => {
    const asset = await readAsset(pagesDir, relativePath);
    if (!asset) {
      ctx.status = 404;
      ctx.body = { error: 'not found' };
      return;
    }
    // Pages change while someone develops them; a stale cached script is worse than a refetch.
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = asset.contentType;
    ctx.body = asset.body;
  };
  router.get('/', (ctx) => sendFile(ctx, 'dashboard/index.html'));
  router.get('/favicon.ico', (ctx) => {
    ctx.status = 204;
  });
  router.get('/assets/{*path}', (ctx) => sendFile(ctx, ctx.params.path ?? ''));
  router.get('/meet/:id', (ctx) => sendFile(ctx, 'teams/index.html'));
  router.get('/light-meetings/launch', (ctx) => sendFile(ctx, 'teams/index.html'));
  // Zoom: the invitation link's landing page and the web client's join page are one page here.
  router.get('/j/:id', (ctx) => sendFile(ctx, 'zoom/index.html'));
  router.get('/wc/:id/join', (ctx) => sendFile(ctx, 'zoom/index.html'));
  // Meet serves any single path segment; its page tells a malformed code from an unknown one.
  router.get('/:code', (ctx) => sendFile(ctx, 'google-meet/index.html'));
  return router;
}
