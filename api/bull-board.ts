import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Queue } from 'bullmq';
import type { Middleware } from 'koa';
import { boardErrorTranslator } from './bull-board-errors.js';
import type { AppState } from './context.js';
import { sameOriginOnly } from './middleware/same-origin.js';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Where @bull-board/ui's page, scripts and translations are, resolved from this module (so from
 * `api/` under tsx and from `dist/api/` when compiled, in a checkout or in the service image). The
 * UI fetches its labels from `<base>/static/locales/<lng>/messages.json` after the page loads; a
 * missing file leaves raw keys (MENU.QUEUES) on screen, so start-up fails instead.
 */
function bullBoardUi(): { uiPath: string; englishMessages: string } {
  // @bull-board/ui is @bull-board/koa's dependency: look it up from there, hoisted or nested.
  const koaAdapter = createRequire(import.meta.url).resolve('@bull-board/koa');
  const uiPath = dirname(createRequire(koaAdapter).resolve('@bull-board/ui/package.json'));
  const english = join(uiPath, 'dist', 'static', 'locales', 'en-US', 'messages.json');
  if (!existsSync(english)) throw new Error(`Bull Board's translations are missing: ${english}`);
  return { uiPath, englishMessages: english };
}

/**
 * Bull Board for operators at /admin/queues, behind the admin key. A browser gets a Basic-auth
 * prompt (any user name, the admin key as password), and then sends those credentials with every
 * request to the board, whichever site made it: the board's state-changing requests (add, retry,
 * clean a job...) are taken only from its own pages (sameOriginOnly). Its error bodies are the
 * API's `{"error": "..."}`.
 */
export function bullBoard(
  queues: readonly Queue[],
  requireAdmin: Middleware<AppState>,
  options: { publicBaseUrl?: string | undefined } = {},
): Middleware<AppState> {
  const { uiPath, englishMessages } = bullBoardUi();
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiBasePath: uiPath },
  });
  const board = serverAdapter.registerPlugin() as unknown as Middleware<AppState>;
  const sameOrigin = sameOriginOnly(options.publicBaseUrl);
  const errorText = boardErrorTranslator(englishMessages);
  return async (ctx, next) => {
    if (ctx.path !== BULL_BOARD_PATH && !ctx.path.startsWith(`${BULL_BOARD_PATH}/`)) return next();
    await sameOrigin(ctx, () => requireAdmin(ctx, () => board(ctx, next)));
    if (ctx.status >= 400) {
      const text = errorText(ctx.body, ctx.status);
      if (text !== undefined) {
        const status = ctx.status;
        if (status >= 500) ctx.state.log?.error({ board: ctx.body }, 'Bull Board request failed');
        ctx.body = { error: text };
        ctx.status = status;
      }
    }
  };
}
