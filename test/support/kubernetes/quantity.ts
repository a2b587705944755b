/**
 * Kubernetes resource quantities (`500m`, `1`, `1.5`, `1Gi`, `512Mi`, `1e9`, `128974848`), as
 * apimachinery's resource.Quantity reads them: a signed decimal number and one suffix, binary SI
 * (Ki … Ei), decimal SI (n u m "" k M G T P E) or a decimal exponent (e3, E-2).
 * https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
 */
const QUANTITY =
  /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|n|u|m|k|M|G|T|P|E)?$/;

const MULTIPLIERS: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
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

/** The message the API server's decoder gives for a string that is not a quantity. */
export const QUANTITY_FORMAT_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export function isQuantity(text: string): boolean {
  return QUANTITY.test(text.trim());
}

/** The quantity in base units (cores, bytes); throws on anything that is not a quantity. */
export function parseQuantity(text: string | number): number {
  if (typeof text === 'number') return text;
  const match = QUANTITY.exec(text.trim());
  if (!match?.[1]) throw new Error(`${QUANTITY_FORMAT_MESSAGE}: ${JSON.stringify(text)}`);
  const suffix = match[2] ?? '';
  const multiplier = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : MULTIPLIERS[suffix];
  if (multiplier === undefined) throw new Error(`${QUANTITY_FORMAT_MESSAGE}: ${JSON.stringify(text)}`);
  return Number(match[1]) * multiplier;
}

/**
 * CPU in millicores. Kubernetes rounds a finer CPU quantity up to the next millicore (MilliValue
 * rounds up), so `1u` asks for 1m.
 */
export function cpuMillicores(quantity: string | number): number {
  return Math.ceil(parseQuantity(quantity) * 1000 - 1e-9);
}

/** Memory (or any count) in whole units, rounded up as Quantity.Value() does. */
export function wholeUnits(quantity: string | number): number {
  return Math.ceil(parseQuantity(quantity) - 1e-9);
}

/** A CPU rate as metrics-server writes it: nanocores. */
export function formatNanocores(nanocores: number): string {
  return `${Math.max(0, Math.round(nanocores))}n`;
}

/** Memory as metrics-server writes it: kibibytes. */
export function formatKibibytes(bytes: number): string {
  return `${Math.max(0, Math.round(bytes / 1024))}Ki`;
}
