import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../context.js';
import { parseInput } from '../middleware/validate.js';
import { type Route, type RouteKit, withLimits } from './route.js';

/**
 * A folder's routes on one Koa router, each as: authentication, then the JSON body when it takes
 * one, then its inputs validated (path, body, query), then its handler.
 */
export function routerOf<Deps>(routes: readonly Route<Deps>[], deps: Deps, kit: RouteKit): Router<AppState> {
  const router = new Router<AppState>();
  for (const route of routes) {
    const query = route.query && withLimits(route.query, kit.limits);
    const before: Middleware<AppState>[] = [];
    const auth = route.auth.middleware(kit);
    if (auth) before.push(auth);
    if (route.body) {
      before.push(
        route.bodyLimit
          ? kit.jsonBodyWithin(route.bodyLimit)
          : route.bodyMayBeEmpty
            ? kit.optionalJsonBody
            : kit.jsonBody,
      );
    }
    router[route.method](route.path, ...before, async (ctx) => {
      const input = {
        params: route.params && parseInput(route.params, ctx.params, 'Path'),
        body: route.body && parseInput(route.body, ctx.state.body),
        query: query && parseInput(query, ctx.query, 'Query'),
      };
      await route.handler(ctx, input, deps);
    });
  }
  return router;
}
