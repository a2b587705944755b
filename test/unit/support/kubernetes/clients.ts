import {
  ApiException,
  CoreV1Api,
  type KubeConfig,
  Log,
  Metrics,
  type V1Pod,
  Watch,
} from '@kubernetes/client-node';
import type { Status } from '../../../support/kubernetes/api-errors.js';
import type { KubernetesDouble } from '../../../support/kubernetes/kubernetes-double.js';

/** The official client's classes, pointed at a double through its kubeconfig. */
export function clientsOf(double: KubernetesDouble, options: { admin?: boolean } = {}) {
  const config: KubeConfig = double.kubeConfig(options);
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    watch: new Watch(config),
    log: new Log(config),
    metrics: new Metrics(config),
  };
}

/** The Status object of a refused call (the client keeps the body as text). */
export async function refusal(call: Promise<unknown>): Promise<Status> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = (error as ApiException<unknown>).body;
    return (typeof body === 'string' ? JSON.parse(body) : body) as Status;
  }
  throw new Error('the call succeeded');
}

/** A one-container pod as a runtime would send it. */
export function podManifest(
  name: string,
  extra: Partial<V1Pod> & { labels?: Record<string, string> } = {},
): V1Pod {
  const { labels, ...rest } = extra;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: labels ?? { app: 'meetbot' } },
    spec: {
      restartPolicy: 'Never',
      containers: [
        {
          name: 'bot',
          image: 'meetbot/bot:latest',
          resources: { requests: { cpu: '500m', memory: '512Mi' } },
        },
      ],
    },
    ...rest,
  };
}

export interface WatchEvent {
  type: string;
  object: {
    metadata?: { name?: string; resourceVersion?: string };
    code?: number;
    reason?: string;
    [key: string]: unknown;
  };
}

/** A watch through the client's Watch class, collecting its events until stopped. */
export async function collectWatch(
  watch: Watch,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
): Promise<{ events: WatchEvent[]; ended: Promise<unknown>; stop: () => void }> {
  const events: WatchEvent[] = [];
  let ended!: (error: unknown) => void;
  const done = new Promise((resolve) => {
    ended = resolve;
  });
  const controller = await watch.watch(
    path,
    query,
    (type, object) => events.push({ type, object }),
    (error) => ended(error),
  );
  return { events, ended: done, stop: () => controller.abort() };
}

/** Polls until `check` returns a value (not undefined/false), or fails after the timeout. */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
