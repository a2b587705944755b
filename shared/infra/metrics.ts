import { hostname } from 'node:os';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** Every series this project exports starts with this. */
export const METRIC_PREFIX = 'meetbot_';

/**
 * One Prometheus registry per process (prom-client): the process's own metrics (CPU, memory, event
 * loop lag, GC) and the service's, each labelled with the service and the host it runs on.
 */
export function createMetricsRegistry(
  service: 'api' | 'worker',
  labels: Record<string, string> = {},
): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service, host: hostname(), ...labels });
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}

/** Whether a scrape may read /metrics: open without METRICS_TOKEN, else `Authorization: Bearer <token>`. */
export function mayScrape(authorization: string | undefined, token: string | undefined): boolean {
  return !token || authorization === `Bearer ${token}`;
}
