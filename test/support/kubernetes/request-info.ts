/**
 * What a request asks for, read from its method and path as the API server's RequestInfoResolver
 * reads it: `/api/v1/…` (the core group) or `/apis/{group}/{version}/…`, optionally
 * `namespaces/{ns}/`, then `{resource}[/{name}[/{subresource}]]`; the verb from the method (GET on a
 * name is get, on a collection list, or watch with `?watch=true|1`; the deprecated
 * `/api/v1/watch/…` prefix also watches). Other paths are non-resource requests (/version, /apis…).
 */
export interface ResourceRequest {
  kind: 'resource';
  verb: string;
  apiGroup: string;
  apiVersion: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
}

export interface NonResourceRequest {
  kind: 'nonResource';
  path: string;
}

const TRUE_VALUES = new Set(['true', '1', 't', 'True', 'TRUE']);

export function isWatch(query: URLSearchParams): boolean {
  return TRUE_VALUES.has(query.get('watch') ?? '');
}

export function requestInfo(method: string, url: URL): ResourceRequest | NonResourceRequest {
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let rest: string[];
  let apiGroup: string;
  let apiVersion: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    apiGroup = '';
    apiVersion = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    apiGroup = parts[1]!;
    apiVersion = parts[2]!;
    rest = parts.slice(3);
  } else {
    return { kind: 'nonResource', path: url.pathname };
  }
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  } else if (rest[0] === 'namespaces' && rest.length === 2) {
    // A namespace itself: /api/v1/namespaces/{name}.
    rest = ['namespaces', rest[1]!];
  }
  const [resource = '', name, subresource, ...extra] = rest;
  if (extra.length) return { kind: 'nonResource', path: url.pathname };
  let verb: string;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = legacyWatch || isWatch(url.searchParams) ? 'watch' : name ? 'get' : 'list';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name ? 'delete' : 'deletecollection';
      break;
    default:
      verb = method.toLowerCase();
  }
  return {
    kind: 'resource',
    verb,
    apiGroup,
    apiVersion,
    ...(namespace !== undefined && { namespace }),
    resource,
    ...(name !== undefined && { name }),
    ...(subresource !== undefined && { subresource }),
  };
}
