import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { ApiError, internalError, methodNotAllowed, pathNotFound, unauthorized } from './api-errors.js';
import { discovery, PUBLIC_PATHS } from './discovery.js';
import type { Disruptions } from './disruptions.js';
import { nameInFieldSelector, parseFieldSelector } from './field-selector.js';
import { readJsonBody, sendError, sendJson, sendText } from './http-io.js';
import type { Kubelet } from './kubelet.js';
import { parseLabelSelector } from './label-selector.js';
import { METRICS_GROUP, type MetricsApi } from './metrics-api.js';
import type { Resource } from './object-store.js';
import { type DeleteOptions, DeleteOptionsSchema, decode } from './objects.js';
import { podLog } from './pod-logs.js';
import { asPod } from './pod-strategy.js';
import { parseQuery, type Query } from './query-parameters.js';
import type { Authorizer } from './rbac.js';
import type { Registry, Selection } from './registry.js';
import { type ResourceRequest, requestInfo } from './request-info.js';
import type { WatchStreams } from './watch-streams.js';

/**
 * The double's HTTP front: the API server's paths for what it serves, its authentication (a bearer
 * token; none or another is 401) and authorization (RBAC for the service account's token, nothing
 * checked for the admin token), and errors as Status objects.
 */
export interface ApiDoubleParts {
  registries: Record<'pods' | 'secrets' | 'nodes' | 'namespaces' | 'poddisruptionbudgets', Registry>;
  watches: WatchStreams;
  authorizer: Authorizer;
  /** The service account's token (checked by RBAC) and an administrator's (not checked). */
  tokens: { serviceAccount: string; admin: string };
  kubelet: Kubelet;
  metrics: MetricsApi;
  disruptions: Disruptions;
}

interface Route {
  registry: Registry;
  /** Only get, list and watch (objects the tests' hooks write). */
  readOnly: boolean;
}

const LIST_KINDS: Record<Resource, string> = {
  pods: 'PodList',
  secrets: 'SecretList',
  nodes: 'NodeList',
  namespaces: 'NamespaceList',
  poddisruptionbudgets: 'PodDisruptionBudgetList',
};

function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

export class ApiDouble {
  private readonly server: Server;
  private address = '';

  constructor(private readonly parts: ApiDoubleParts) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        sendError(response, error instanceof ApiError ? error : internalError((error as Error).message));
      });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (this.server.address() as AddressInfo).port;
    this.address = `127.0.0.1:${port}`;
    return port;
  }

  async close(): Promise<void> {
    this.parts.watches.dropAll();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private route(request: ResourceRequest): Route | undefined {
    const { registries } = this.parts;
    if (request.apiGroup === '' && request.apiVersion === 'v1') {
      switch (request.resource) {
        case 'pods':
          return { registry: registries.pods, readOnly: false };
        case 'secrets':
          return { registry: registries.secrets, readOnly: false };
        case 'nodes':
          return { registry: registries.nodes, readOnly: true };
        case 'namespaces':
          return { registry: registries.namespaces, readOnly: true };
      }
    }
    if (
      request.apiGroup === 'policy' &&
      request.apiVersion === 'v1' &&
      request.resource === 'poddisruptionbudgets'
    )
      return { registry: registries.poddisruptionbudgets, readOnly: true };
    return undefined;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = request.method ?? 'GET';
    const info = requestInfo(method, url);
    if (info.kind === 'nonResource' && PUBLIC_PATHS.has(url.pathname)) {
      if (url.pathname === '/version') sendJson(response, 200, discovery('/version', false, this.address));
      else sendText(response, 'ok');
      return;
    }
    const token = bearerToken(request);
    const admin = token === this.parts.tokens.admin;
    if (!admin && token !== this.parts.tokens.serviceAccount) throw unauthorized();
    if (info.kind === 'nonResource') {
      const document =
        method === 'GET' ? discovery(url.pathname, this.parts.metrics.enabled, this.address) : undefined;
      if (document === undefined) throw pathNotFound();
      sendJson(response, 200, document);
      return;
    }
    const query = parseQuery(url.searchParams);
    if (!admin) {
      const fieldName = info.name ?? nameInFieldSelector(query.fieldSelector);
      this.parts.authorizer.authorize({
        verb: info.verb,
        apiGroup: info.apiGroup,
        resource: info.resource,
        ...(info.subresource && { subresource: info.subresource }),
        ...(fieldName && { name: fieldName }),
        ...(info.namespace !== undefined && { namespace: info.namespace }),
      });
    }
    if (info.apiGroup === METRICS_GROUP) {
      await this.metrics(info, response);
      return;
    }
    const route = this.route(info);
    if (!route) throw pathNotFound();
    if (info.subresource) {
      await this.subresource(info, route, query, request, response);
      return;
    }
    await this.resource(info, route, query, request, response);
  }

  private selection(route: Route, query: Query, name: string | undefined): Selection {
    const fields = parseFieldSelector(query.fieldSelector, route.registry.strategy.selectableFields);
    if (name) fields.push({ field: 'metadata.name', operator: '=', value: name });
    return { labels: parseLabelSelector(query.labelSelector), fields };
  }

  private async resource(
    info: ResourceRequest,
    route: Route,
    query: Query,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const { registry } = route;
    const strategy = registry.strategy;
    // A namespaced resource is listed and watched across namespaces at its cluster path, nothing else.
    if (
      strategy.namespaced !== (info.namespace !== undefined) &&
      !(strategy.namespaced && ['list', 'watch'].includes(info.verb))
    )
      throw pathNotFound();
    const namespace = info.namespace;
    const name = info.name;
    const dryRun = query.dryRun === 'All';
    if (route.readOnly && !['get', 'list', 'watch'].includes(info.verb))
      throw methodNotAllowed(request.method ?? '');
    switch (info.verb) {
      case 'get':
        sendJson(response, 200, registry.get(namespace, name!));
        return;
      case 'list': {
        const selection = this.selection(route, query, undefined);
        const list = registry.list(namespace, selection);
        sendJson(response, 200, {
          kind: LIST_KINDS[strategy.resource],
          apiVersion: strategy.apiVersion,
          metadata: { resourceVersion: list.resourceVersion },
          items: list.items,
        });
        return;
      }
      case 'watch': {
        const selection = this.selection(route, query, name);
        this.parts.watches.serve(response, {
          resource: strategy.resource,
          namespace,
          kind: strategy.kind,
          apiVersion: strategy.apiVersion,
          matches: (object) => registry.matches(object, selection),
          resourceVersion: query.resourceVersion,
          allowBookmarks: query.allowWatchBookmarks === true,
          sendInitialEvents: query.sendInitialEvents === true,
          timeoutSeconds: query.timeoutSeconds,
        });
        return;
      }
      case 'create':
        if (name) throw methodNotAllowed('POST');
        sendJson(response, 201, registry.create(namespace, await readJsonBody(request), dryRun));
        return;
      case 'update':
        sendJson(response, 200, registry.replace(namespace, name!, await readJsonBody(request), dryRun));
        return;
      case 'patch':
        sendJson(
          response,
          200,
          registry.patch(
            namespace,
            name!,
            request.headers['content-type'] ?? '',
            await readJsonBody(request),
            dryRun,
          ),
        );
        return;
      case 'delete': {
        const options = await deleteOptions(request, query);
        const answer = registry.delete(namespace, name!, options, dryRun || options.dryRun?.includes('All'));
        sendJson(response, 200, 'object' in answer ? answer.object : answer.status);
        return;
      }
      case 'deletecollection': {
        const options = await deleteOptions(request, query);
        const selection = this.selection(route, query, undefined);
        const items = [];
        for (const item of registry.list(namespace, selection).items) {
          const answer = registry.delete(item.metadata.namespace, item.metadata.name ?? '', options, dryRun);
          items.push('object' in answer ? answer.object : item);
        }
        sendJson(response, 200, {
          kind: LIST_KINDS[strategy.resource],
          apiVersion: strategy.apiVersion,
          metadata: { resourceVersion: registry.list(namespace, selection).resourceVersion },
          items,
        });
        return;
      }
      default:
        throw methodNotAllowed(request.method ?? '');
    }
  }

  private async subresource(
    info: ResourceRequest,
    route: Route,
    query: Query,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (route.registry.strategy.resource !== 'pods' || info.namespace === undefined || !info.name)
      throw pathNotFound();
    const namespace = info.namespace;
    const name = info.name;
    switch (`${info.subresource} ${info.verb}`) {
      case 'log get': {
        const pod = asPod(route.registry.get(namespace, name));
        const output = await podLog(this.parts.kubelet, pod, query);
        if (typeof output === 'string') {
          sendText(response, output);
        } else {
          response.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
          response.on('close', () => (output as Readable).destroy());
          output.pipe(response);
        }
        return;
      }
      case 'eviction create':
        sendJson(response, 201, this.parts.disruptions.evict(namespace, name, await readJsonBody(request)));
        return;
      case 'status get':
        sendJson(response, 200, route.registry.get(namespace, name));
        return;
      default:
        if (['log', 'eviction', 'status'].includes(info.subresource ?? ''))
          throw methodNotAllowed(request.method ?? '');
        throw pathNotFound();
    }
  }

  private async metrics(info: ResourceRequest, response: ServerResponse): Promise<void> {
    const metrics = this.parts.metrics;
    if (info.apiVersion !== 'v1beta1' || info.subresource) throw pathNotFound();
    if (!['get', 'list'].includes(info.verb))
      throw metrics.enabled ? methodNotAllowed(info.verb) : pathNotFound();
    if (info.resource === 'pods') {
      const answer = info.name
        ? await metrics.getPod(info.namespace ?? '', info.name)
        : await metrics.listPods(info.namespace);
      sendJson(response, 200, answer);
    } else if (info.resource === 'nodes' && info.namespace === undefined) {
      sendJson(response, 200, info.name ? await metrics.getNode(info.name) : await metrics.listNodes());
    } else {
      throw pathNotFound();
    }
  }
}

/** DeleteOptions from the body when there is one, else from the query (as the API server reads them). */
async function deleteOptions(request: IncomingMessage, query: Query): Promise<DeleteOptions> {
  const body = await readJsonBody(request);
  if (body !== undefined) return decode(DeleteOptionsSchema, 'DeleteOptions', body);
  return {
    ...(query.gracePeriodSeconds !== undefined && { gracePeriodSeconds: query.gracePeriodSeconds }),
    ...(query.propagationPolicy !== undefined && { propagationPolicy: query.propagationPolicy }),
    ...(query.dryRun !== undefined && { dryRun: [query.dryRun] }),
  };
}
