import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { AppRouterContext, AppState } from '../context.js';
import type { PageSizes } from './query-params.js';

/** The deployment's limits that routes enforce and the OpenAPI document states. */
export interface RouteLimits {
  /** LIST_DEFAULT_LIMIT and LIST_MAX_LIMIT */
  pageSizes: PageSizes;
  /** MEETING_DATA_MAX_BYTES */
  meetingDataMaxBytes: number;
  /** LIVE_STREAMS_PER_USER */
  liveStreamsPerUser: number;
}

/** The middleware every route folder's router is built with: one instance of each per app. */
export interface RouteKit {
  requireUser: Middleware<AppState>;
  /** requireUser that also takes the key as `Authorization: Bearer <key>` (the MCP endpoint). */
  requireUserOrBearer: Middleware<AppState>;
  /** requireUser that neither counts nor refuses by the key's request rate (stopping a bot). */
  requireUserUnmetered: Middleware<AppState>;
  requireAdmin: Middleware<AppState>;
  jsonBody: Middleware<AppState>;
  /** jsonBody that reads an empty body as `{}`. */
  optionalJsonBody: Middleware<AppState>;
  /** jsonBody with a route's own larger cap (RouteDefinition.bodyLimit). */
  jsonBodyWithin(limit: BodyLimit): Middleware<AppState>;
  limits: RouteLimits;
}

/**
 * A route's own cap on its JSON body, for bodies that carry media inline: the larger of this and
 * REQUEST_BODY_LIMIT_BYTES applies, and a body over it is 413 with `hint` added.
 */
export interface BodyLimit {
  bytes: number;
  hint: string;
}

/** An OpenAPI object (parameter, response, …), written as the document shows it. */
export type OpenApiObject = Record<string, unknown>;
export type SecurityRequirement = Record<string, string[]>;

/** How a route authenticates: the middleware that checks it, and what the document says of it. */
export interface RouteAuth {
  /** The operation's `security`; without one, the document's default (X-API-Key) applies. */
  security?: SecurityRequirement[];
  middleware(kit: RouteKit): Middleware<AppState> | undefined;
}

export const userAuth: RouteAuth = { middleware: (kit) => kit.requireUser };
/**
 * A user's key, outside the key's request rate: for stopping a bot, which must get through even when
 * the key spent its budget (a flood of its own requests, or of a script gone wrong, must not keep a
 * bot in a meeting). A stop costs about what the key lookup every request pays already: it ends the
 * live meeting, and a repeat finds none (404).
 */
export const stopAuth: RouteAuth = { middleware: (kit) => kit.requireUserUnmetered };
/** A user's key as X-API-Key or as `Authorization: Bearer <key>`. */
export const userOrBearerAuth: RouteAuth = {
  security: [{ ApiKey: [] }, { BearerApiKey: [] }],
  middleware: (kit) => kit.requireUserOrBearer,
};
export const adminAuth: RouteAuth = {
  security: [{ AdminApiKey: [] }],
  middleware: (kit) => kit.requireAdmin,
};
export const noAuth: RouteAuth = { security: [], middleware: () => undefined };

/** A query schema or a part of the document that depends on the deployment's limits. */
export type WithLimits<T> = T | ((limits: RouteLimits) => T);

type Parsed<Schema> = Schema extends z.ZodType ? z.output<Schema> : undefined;

/** What a route's schemas made of the request: its path parameters, JSON body and query. */
export interface RouteInput<Params, Body, Query> {
  params: Params;
  body: Body;
  query: Query;
}

/**
 * One route, declared once: how the router serves it (auth, schemas, handler) and how the OpenAPI
 * document describes it. Inputs are validated in the order path, body, query, before the handler.
 */
export interface RouteDefinition<
  Deps,
  Params extends z.ZodType | undefined = z.ZodType | undefined,
  Body extends z.ZodType | undefined = z.ZodType | undefined,
  Query extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa's form (`/meetings/:id`); the document writes `/meetings/{id}`. */
  path: string;
  auth: RouteAuth;
  params?: Params;
  /** A JSON body, read by jsonBody after authentication; documented as the request body. */
  body?: Body;
  /** An empty body reads as `{}` (and the document marks the body optional). */
  bodyMayBeEmpty?: boolean;
  /** A larger body cap than REQUEST_BODY_LIMIT_BYTES (media inline). */
  bodyLimit?: BodyLimit;
  query?: WithLimits<Query>;
  summary: string;
  description?: string;
  /** Path, query and header parameters as the document shows them. */
  parameters?: WithLimits<readonly OpenApiObject[]>;
  responses: WithLimits<Record<number, OpenApiObject>>;
  // Method syntax on purpose: a route of any schemas fits a list of routes of the same deps.
  handler(
    ctx: AppRouterContext,
    input: RouteInput<Parsed<Params>, Parsed<Body>, Parsed<Query>>,
    deps: Deps,
  ): Promise<void> | void;
}

/** A route whose schemas no longer matter to the caller: what routers and the document take. */
export type Route<Deps> = RouteDefinition<Deps>;

/**
 * Declares the routes of one folder, whose handlers take `Deps`:
 * `const route = routesOf<MeetingsDeps>(); export const meetingRoutes = [route({ ... })];`
 */
export function routesOf<Deps>() {
  return <
    Params extends z.ZodType | undefined = undefined,
    Body extends z.ZodType | undefined = undefined,
    Query extends z.ZodType | undefined = undefined,
  >(
    definition: RouteDefinition<Deps, Params, Body, Query>,
  ): Route<Deps> => definition;
}

export function withLimits<T>(value: WithLimits<T>, limits: RouteLimits): T {
  return typeof value === 'function' ? (value as (limits: RouteLimits) => T)(limits) : value;
}

/** `/meetings/:id` → `/meetings/{id}` */
export function documentedPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
