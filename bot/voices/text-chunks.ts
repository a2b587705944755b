/**
 * Splits text into the pieces the bot synthesises and plays one after the other, so the first
 * sound goes out after synthesising a few words rather than the whole text: sentences, long ones
 * cut at their phrase boundaries (commas, semicolons, dashes), and the very first piece kept short.
 */
const FIRST_CHUNK_MAX = 60;
const CHUNK_MAX = 160;

export function speechChunks(text: string): string[] {
  const sentences = text
    .replace(/\s+/g, ' ')
    .trim()
    .split(/(?<=[.!?…])\s+/)
    .filter((sentence) => sentence !== '');
  const chunks: string[] = [];
  for (const sentence of sentences) {
    const limit = chunks.length === 0 ? FIRST_CHUNK_MAX : CHUNK_MAX;
    chunks.push(...splitLong(sentence, limit, CHUNK_MAX));
  }
  return chunks;
}

/** Cuts at phrase boundaries, then at spaces, so no piece is longer than its limit where avoidable. */
function splitLong(sentence: string, firstLimit: number, limit: number): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  let max = firstLimit;
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    let cut = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; '), window.lastIndexOf(' - '));
    if (cut < max / 3) cut = window.lastIndexOf(' ');
    if (cut <= 0) break;
    const end = rest[cut] === ' ' ? cut : cut + 1;
    pieces.push(rest.slice(0, end).trim());
    rest = rest.slice(end).trim();
    max = limit;
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}
