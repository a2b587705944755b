/**
 * Kubernetes resource quantities (`250m`, `1`, `12345678n`, `512Mi`, `1G`, `1e3`), as the metrics
 * API writes them, in base units: cores for CPU, bytes for memory.
 */
const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function parseQuantity(quantity: string): number {
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(
    quantity.trim(),
  );
  const multiplier = match ? SUFFIXES[match[2] ?? ''] : undefined;
  if (!match?.[1] || multiplier === undefined) throw new Error(`not a Kubernetes quantity: ${quantity}`);
  return Number(match[1]) * multiplier;
}
