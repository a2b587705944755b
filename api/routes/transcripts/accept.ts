/** One media range of an Accept header (RFC 9110 §12.5.1); parameters other than `q` are ignored. */
interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  /** Its place in the header: the client's order breaks ties. */
  position: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The header's well-formed ranges; a malformed one (no `/`, `*` as type only, a bad q) is skipped. */
function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const [position, part] of header.split(',').entries()) {
    const [mediaType = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const [type = '', subtype = '', ...rest] = mediaType.split('/');
    if (rest.length > 0 || !TOKEN.test(type) || !TOKEN.test(subtype)) continue;
    if (type === '*' && subtype !== '*') continue;
    let q = 1;
    let valid = true;
    for (const parameter of parameters) {
      const [name = '', value = ''] = parameter.split('=').map((piece) => piece.trim());
      if (name !== 'q') continue;
      valid = QVALUE.test(value);
      q = Number(value);
      // Anything after q is an accept extension, not a media type parameter.
      break;
    }
    if (valid) ranges.push({ type, subtype, q, position });
  }
  return ranges;
}

function specificity(range: MediaRange): number {
  if (range.type === '*') return 0;
  return range.subtype === '*' ? 1 : 2;
}

/** The most specific range that covers `mediaType` (the first of equals), if any. */
function rangeFor(ranges: readonly MediaRange[], mediaType: string): MediaRange | undefined {
  const [type, subtype] = mediaType.toLowerCase().split('/');
  let best: MediaRange | undefined;
  for (const range of ranges) {
    const covers =
      range.type === '*' || (range.type === type && (range.subtype === '*' || range.subtype === subtype));
    if (covers && (best === undefined || specificity(range) > specificity(best))) best = range;
  }
  return best;
}

function better(a: MediaRange, b: MediaRange): boolean {
  if (a.q !== b.q) return a.q > b.q;
  if (specificity(a) !== specificity(b)) return specificity(a) > specificity(b);
  return a.position < b.position;
}

export interface Offer<Id extends string> {
  id: Id;
  /** The media types that ask for it, e.g. `text/vtt`. */
  mediaTypes: readonly string[];
}

/**
 * Which offer an Accept header prefers: the highest q, then the most specific range (a type named
 * outright before `text/*` before `*\/*`), then the one the client listed first, then the order of
 * `offers`. The first offer when the header is missing or has no well-formed range; undefined when
 * it accepts none of them.
 */
export function negotiate<Id extends string>(
  header: string | undefined,
  offers: readonly Offer<Id>[],
): Id | undefined {
  const ranges = parseAccept(header ?? '');
  if (ranges.length === 0) return offers[0]?.id;
  let chosen: { id: Id; range: MediaRange } | undefined;
  for (const offer of offers) {
    for (const mediaType of offer.mediaTypes) {
      const range = rangeFor(ranges, mediaType);
      if (range === undefined || range.q === 0) continue;
      if (chosen === undefined || better(range, chosen.range)) chosen = { id: offer.id, range };
    }
  }
  return chosen?.id;
}
