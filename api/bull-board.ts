import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Queue } from 'bullmq';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board for operators at /admin/queues, behind the admin key. A browser gets a Basic-auth
 * prompt (any user name, the admin key as password).
 */
export function bullBoard(
  queues: readonly Queue[],
  requireAdmin: Middleware<AppState>,
): Middleware<AppState> {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter });
  const board = serverAdapter.registerPlugin() as unknown as Middleware<AppState>;
  return async (ctx, next) => {
    if (ctx.path !== BULL_BOARD_PATH && !ctx.path.startsWith(`${BULL_BOARD_PATH}/`)) return next();
    return requireAdmin(ctx, () => board(ctx, next));
  };
}
