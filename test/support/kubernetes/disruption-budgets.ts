import { internalError, tooManyRequests } from './api-errors.js';
import { matchesLabels, selectorOfObject } from './label-selector.js';
import type { ObjectStore } from './object-store.js';
import type { KubeObject, LabelSelectorObject, Pod } from './objects.js';
import { conditionOf } from './pod-status.js';
import { asPod, isTerminal } from './pod-strategy.js';

/**
 * PodDisruptionBudgets as the Eviction API honours them
 * (https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-budgets): an
 * eviction that would leave fewer healthy (Ready) pods than the budget's minAvailable, or more
 * unavailable than its maxUnavailable, is refused with 429 TooManyRequests. The counts are taken
 * live from the pods (a cluster's disruption controller keeps them in the budget's status, a little
 * behind); the expected pod count is the number of matching pods that have not ended.
 */
interface Budget {
  metadata: { name?: string; namespace?: string };
  spec?: { selector?: LabelSelectorObject; minAvailable?: number | string; maxUnavailable?: number | string };
}

function scaled(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.ceil((Number(percent[1]) * total) / 100) : Number(value);
}

function healthy(pod: Pod): boolean {
  return !pod.metadata.deletionTimestamp && conditionOf(pod, 'Ready')?.status === 'True';
}

/** Throws 429 (or 500 for a pod under two budgets) when evicting this pod would break its budget. */
export function checkDisruptionBudgets(store: ObjectStore, pod: Pod): void {
  const namespace = pod.metadata.namespace;
  const budgets = (store.list('poddisruptionbudgets', namespace) as KubeObject[] as Budget[]).filter(
    (budget) => {
      const selector = selectorOfObject(budget.spec?.selector);
      // An empty selector matches every pod of the namespace in policy/v1.
      return matchesLabels(selector, pod.metadata.labels);
    },
  );
  if (budgets.length > 1)
    throw internalError(
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
  const budget = budgets[0];
  if (!budget) return;
  const selector = selectorOfObject(budget.spec?.selector);
  const covered = store
    .list('pods', namespace)
    .map(asPod)
    .filter((candidate) => !isTerminal(candidate) && matchesLabels(selector, candidate.metadata.labels));
  const expected = covered.length;
  const currentHealthy = covered.filter(healthy).length;
  const spec = budget.spec ?? {};
  const desiredHealthy =
    spec.minAvailable !== undefined
      ? scaled(spec.minAvailable, expected)
      : spec.maxUnavailable !== undefined
        ? Math.max(0, expected - scaled(spec.maxUnavailable, expected))
        : 0;
  const afterEviction = healthy(pod) ? currentHealthy - 1 : currentHealthy;
  if (afterEviction >= desiredHealthy) return;
  throw tooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", [
    {
      reason: 'DisruptionBudget',
      message: `The disruption budget ${budget.metadata.name} needs ${desiredHealthy} healthy pods and has ${currentHealthy} currently`,
    },
  ]);
}
