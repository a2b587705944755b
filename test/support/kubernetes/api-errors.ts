/**
 * The API server's errors: each answered as a `Status` object with the HTTP code, a machine-readable
 * reason and the message wording apimachinery's `k8s.io/apimachinery/pkg/api/errors` gives them
 * (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/status/).
 */
export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A resource as the errors name it: `pods`, or `podmetrics.metrics.k8s.io` for another group. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedName(resource: GroupResource): string {
  return resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  status(): Status {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details && { details: this.details }),
      code: this.code,
    };
  }
}

export function successStatus(code: number, details?: StatusDetails): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    ...(details && { details }),
    code,
  };
}

const core = (resource: string): GroupResource => ({ group: '', resource });

export function notFound(resource: GroupResource | string, name: string): ApiError {
  const gr = typeof resource === 'string' ? core(resource) : resource;
  return new ApiError(404, 'NotFound', `${qualifiedName(gr)} "${name}" not found`, {
    name,
    ...(gr.group && { group: gr.group }),
    kind: gr.resource,
  });
}

/** What the server answers for a path it serves nothing at. */
export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(resource: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${resource} "${name}" already exists`, { name, kind: resource });
}

/** An optimistic-concurrency failure: the resourceVersion the client sent is not the object's. */
export function conflict(resource: string, name: string, why: string): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${resource} "${name}": ${why}`, {
    name,
    kind: resource,
  });
}

export const MODIFIED_SINCE =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 422 with every field error, worded as `Pod "x" is invalid: a: b` or `…: [a: b, c: d]`. */
export function invalid(kind: string, name: string, causes: StatusCause[]): ApiError {
  const lines = causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message}` : cause.message));
  const summary = lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${summary}`, { name, kind, causes });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

export function forbidden(resource: GroupResource, name: string | undefined, why: string): ApiError {
  const subject = qualifiedName(resource);
  const message = name ? `${subject} "${name}" is forbidden: ${why}` : `${subject} is forbidden: ${why}`;
  return new ApiError(403, 'Forbidden', message, {
    ...(name && { name }),
    ...(resource.group && { group: resource.group }),
    kind: resource.resource,
  });
}

export function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource`,
    {
      causes: [{ message: `${method} is not supported here` }],
    },
  );
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${contentType || 'none'})`,
  );
}

/** 410 for a resourceVersion older than the history the server keeps. */
export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function tooManyRequests(message: string, causes: StatusCause[]): ApiError {
  return new ApiError(429, 'TooManyRequests', message, { causes });
}

export function internalError(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}
